import tensorflow as tf


class Logger:
    def __init__(self, config, enabled=True):
        self.enabled = enabled
        self.writer = tf.summary.create_file_writer(config.summary_dir) if enabled else None

    def summarize(self, step, summaries_dict, scope="train"):
        if not self.enabled:
            return
        with self.writer.as_default():
            for k, v in summaries_dict.items():
                tf.summary.scalar("{}/{}".format(scope, k), v, step=step)
        self.writer.flush()

    def print(self, *a):
        if self.enabled:
            print(*a, flush=True)
