import tensorflow as tf


class LARSUpdate:
    """Layer-wise adaptive rate scaling applied on top of plain momentum SGD.

    Each variable's gradient is rescaled by eta * ||w|| / (||g|| + wd * ||w||) before the step;
    1-D variables (biases, BN) are left alone.
    """

    def __init__(self, lr, momentum=0.9, weight_decay=1e-4, eta=1e-3):
        self.lr = tf.Variable(lr, trainable=False, dtype=tf.float32)
        self.momentum, self.wd, self.eta = momentum, weight_decay, eta
        self.slots = {}

    def _slot(self, v):
        key = v.path if hasattr(v, "path") else v.name
        if key not in self.slots:
            self.slots[key] = tf.Variable(tf.zeros_like(v), trainable=False)
        return self.slots[key]

    def build(self, variables):
        for v in variables:
            self._slot(v)

    def variables(self):
        return list(self.slots.values())

    def apply(self, grads, variables):
        ratios = []
        for g, v in zip(grads, variables):
            if len(v.shape) > 1:
                g = g + self.wd * v
                w_norm, g_norm = tf.norm(v), tf.norm(g)
                trust = tf.where(w_norm > 0, self.eta * w_norm / (g_norm + 1e-9), 1.0)
                ratios.append(trust)
                g = g * trust
            m = self._slot(v)
            m.assign(self.momentum * m + g)
            v.assign_sub(self.lr * m)
        return tf.stack(ratios)
