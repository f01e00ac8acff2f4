import logging

import tensorflow as tf

log = logging.getLogger(__name__)


class Controller:
    """Runs train/eval in intervals and writes checkpoints + summaries."""

    def __init__(self, trainer, evaluator, checkpoint_manager, summary_dir,
                 steps_per_loop, is_chief):
        self.trainer = trainer
        self.evaluator = evaluator
        self.manager = checkpoint_manager
        self.steps_per_loop = steps_per_loop
        self.is_chief = is_chief
        self.writer = (tf.summary.create_file_writer(summary_dir)
                       if is_chief else tf.summary.create_noop_writer())

    def restore(self):
        # every worker restores the same file; nothing to sync afterwards
        path = self.manager.restore_or_initialize()
        if path:
            log.info("restored from %s", path)

    def train_and_evaluate(self, train_steps):
        step = 0
        while step < train_steps:
            n = min(self.steps_per_loop, train_steps - step)
            train_logs = self.trainer.train(n)
            step += n
            eval_logs = self.evaluator.evaluate()
            with self.writer.as_default():
                for k, v in {**train_logs, **eval_logs}.items():
                    tf.summary.scalar(k, v, step=step)
            if self.is_chief:
                log.info("step %d %s %s", step, train_logs, eval_logs)
            self.manager.save(checkpoint_number=step)
