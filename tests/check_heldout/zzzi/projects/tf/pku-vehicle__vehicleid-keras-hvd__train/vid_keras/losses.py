import keras
from keras import ops


class BatchHardTriplet(keras.losses.Loss):
    def __init__(self, margin=0.3, name='triplet'):
        super().__init__(name=name)
        self.margin = margin

    def call(self, y_true, emb):
        y = ops.reshape(ops.cast(y_true, 'int32'), (-1,))
        sq = ops.sum(ops.square(emb), axis=1)
        d = ops.sqrt(ops.maximum(sq[:, None] - 2 * emb @ ops.transpose(emb) + sq[None, :], 1e-12))
        same = ops.cast(ops.equal(y[:, None], y[None, :]), d.dtype)
        hardest_pos = ops.max(d * same, axis=1)
        hardest_neg = ops.min(d + 1e5 * same, axis=1)
        return ops.relu(hardest_pos - hardest_neg + self.margin)
