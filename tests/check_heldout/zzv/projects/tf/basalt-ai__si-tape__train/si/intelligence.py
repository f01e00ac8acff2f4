import tensorflow as tf


class SynapticIntelligence:
    """Zenke et al. 2017: per-parameter importance from the path integral of the loss."""

    def __init__(self, variables, c=0.1, xi=1e-3):
        self.vars = variables
        self.c = c
        self.xi = xi
        self.omega = [tf.Variable(tf.zeros_like(v), trainable=False) for v in variables]
        self.w = [tf.Variable(tf.zeros_like(v), trainable=False) for v in variables]
        self.prev = [tf.Variable(v, trainable=False) for v in variables]
        self.start = [tf.Variable(v, trainable=False) for v in variables]

    def penalty(self):
        return self.c * tf.add_n([tf.reduce_sum(o * tf.square(v - s))
                                  for o, v, s in zip(self.omega, self.vars, self.start)])

    def accumulate(self, grads):
        """Call after each optimizer step with the (averaged) task-loss gradients."""
        for w, g, v, p in zip(self.w, grads, self.vars, self.prev):
            if g is not None:
                w.assign_sub(g * (v - p))
            p.assign(v)

    def consolidate(self):
        for o, w, v, s in zip(self.omega, self.w, self.vars, self.start):
            o.assign_add(w / (tf.square(v - s) + self.xi))
            w.assign(tf.zeros_like(w))
            s.assign(v)
