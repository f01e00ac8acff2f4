import math

import tensorflow as tf
import horovod.tensorflow as hvd


class Perplexity(object):
    """mean cross-entropy over batches -> perplexity, across workers"""

    def __init__(self):
        self.mean = tf.keras.metrics.Mean()

    def update(self, loss):
        self.mean.update_state(loss)

    def reset(self):
        self.mean.reset_state()

    def result(self):
        local = self.mean.result()
        loss = hvd.allreduce(local, op=hvd.Sum, name='ppl_loss')
        return math.exp(float(loss))
