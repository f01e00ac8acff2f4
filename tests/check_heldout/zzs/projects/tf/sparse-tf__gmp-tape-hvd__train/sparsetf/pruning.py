import tensorflow as tf


def sparsity_at(step, begin, end, final, initial=0.0, power=3):
    if step < begin:
        return initial
    frac = min(1.0, (step - begin) / max(1, end - begin))
    return final + (initial - final) * (1.0 - frac) ** power


class MaskedModel:
    """Keeps one non-trainable 0/1 mask per conv/dense kernel of a Keras model."""

    def __init__(self, model):
        self.model = model
        self.kernels = [v for v in model.trainable_variables if len(v.shape) >= 2]
        self.masks = [tf.Variable(tf.ones_like(k), trainable=False) for k in self.kernels]

    def update_masks(self, sparsity):
        for k, m in zip(self.kernels, self.masks):
            flat = tf.sort(tf.reshape(tf.abs(k), [-1]))
            idx = tf.cast(sparsity * tf.cast(tf.size(flat), tf.float32), tf.int32)
            thr = flat[tf.minimum(idx, tf.size(flat) - 1)] if sparsity > 0 else -1.0
            m.assign(tf.cast(tf.abs(k) > thr, k.dtype))

    def apply(self):
        for k, m in zip(self.kernels, self.masks):
            k.assign(k * m)

    def global_sparsity(self):
        zeros = sum(float(tf.reduce_sum(1.0 - m)) for m in self.masks)
        total = sum(float(tf.size(m)) for m in self.masks)
        return zeros / total
