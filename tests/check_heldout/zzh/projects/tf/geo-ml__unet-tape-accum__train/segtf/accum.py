"""Gradient accumulation for a custom loop: sum local micro-batch gradients,
average them across workers once per optimizer step."""
import tensorflow as tf
import horovod.tensorflow as hvd


class GradientAccumulator:
    def __init__(self, variables):
        self.variables = variables
        self.buffers = [tf.Variable(tf.zeros_like(v), trainable=False) for v in variables]

    def add(self, grads):
        for buf, g in zip(self.buffers, grads):
            buf.assign_add(g)

    def reset(self):
        for buf in self.buffers:
            buf.assign(tf.zeros_like(buf))

    def allreduced(self, steps, compression):
        local = [buf / tf.cast(steps, buf.dtype) for buf in self.buffers]
        return hvd.grouped_allreduce(local, op=hvd.Average, compression=compression)
