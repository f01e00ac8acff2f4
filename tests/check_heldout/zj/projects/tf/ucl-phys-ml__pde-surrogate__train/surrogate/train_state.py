import tensorflow as tf


class GradAccumulator:
    def __init__(self, variables):
        self.variables = variables
        self.sums = [tf.Variable(tf.zeros_like(v), trainable=False) for v in variables]

    def add(self, grads):
        for s, g in zip(self.sums, grads):
            s.assign_add(g)

    def mean(self, n):
        return [s / n for s in self.sums]

    def reset(self):
        for s in self.sums:
            s.assign(tf.zeros_like(s))


class EMA:
    def __init__(self, variables, decay):
        self.decay = decay
        self.src = variables
        self.shadow = [tf.Variable(v, trainable=False) for v in variables]

    def update(self):
        for s, v in zip(self.shadow, self.src):
            s.assign(self.decay * s + (1.0 - self.decay) * v)

    def copy_to(self, variables):
        for s, v in zip(self.shadow, variables):
            v.assign(s)
