import os

import tensorflow as tf
import horovod.tensorflow as hvd


class BestSaver(object):
    def __init__(self, model, opt, save_dir):
        self.ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
        self.dir = save_dir
        self.best = float("inf")

    def maybe_save(self, value, epoch):
        if value >= self.best:
            return False
        self.best = value
        if hvd.rank() == 0:
            os.makedirs(self.dir, exist_ok=True)
            self.ckpt.write(os.path.join(self.dir, "best"))
            print("  saved best (epoch %d, %.4f)" % (epoch, value))
        return True
