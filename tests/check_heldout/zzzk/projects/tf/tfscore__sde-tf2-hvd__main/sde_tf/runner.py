import logging
import os

import tensorflow as tf
import horovod.tensorflow as hvd

from .sde_lib import dsm_loss


class Runner:
    def __init__(self, args, sde, model, optimizer):
        self.args = args
        self.sde = sde
        self.model = model
        self.optimizer = optimizer
        self.ema_weights = None
        self.ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, step=tf.Variable(0, dtype=tf.int64))
        self.ckpt_dir = os.path.join(args.workdir, "checkpoints")

    @tf.function
    def step_fn(self, x):
        with tf.GradientTape() as tape:
            loss = dsm_loss(self.model, self.sde, x)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss

    def _update_ema(self):
        r = self.args.ema_rate
        if self.ema_weights is None:
            self.ema_weights = [tf.Variable(w, trainable=False) for w in self.model.trainable_variables]
            return
        for e, w in zip(self.ema_weights, self.model.trainable_variables):
            e.assign(r * e + (1 - r) * w)

    def fit(self, ds):
        step = int(self.ckpt.step.numpy())
        latest = tf.train.latest_checkpoint(self.ckpt_dir) if hvd.rank() == 0 else None
        if latest:
            self.ckpt.restore(latest)
            step = int(self.ckpt.step.numpy())
        step = hvd.broadcast_object(step, root_rank=0, name="step")
        first = True
        for x in ds:
            loss = self.step_fn(x)
            if first:
                hvd.broadcast_variables(self.model.variables, root_rank=0)
                hvd.broadcast_variables(self.optimizer.variables, root_rank=0)
                first = False
            self._update_ema()
            step += 1
            if step % self.args.log_freq == 0:
                loss_avg = hvd.allreduce(loss, op=hvd.Average, name="loss")
                logging.info("step %d, training_loss %.5e", step, float(loss_avg))
            if step % self.args.snapshot_freq == 0 and hvd.rank() == 0:
                self.ckpt.step.assign(step)
                tf.train.CheckpointManager(self.ckpt, self.ckpt_dir, max_to_keep=5).save(checkpoint_number=step)
            if step >= self.args.n_iters:
                break
