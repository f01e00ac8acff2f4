import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


class LatWeightedRMSE:
    """Per-variable latitude-weighted RMSE accumulated as sums; global() sums over ranks."""

    def __init__(self, lats, nv):
        w = np.cos(np.deg2rad(lats)).astype(np.float32)
        self.w = tf.constant((w / w.mean())[None, :, None, None])
        self.sse = tf.Variable(tf.zeros(nv), trainable=False)
        self.n = tf.Variable(0.0, trainable=False)

    def reset(self):
        self.sse.assign(tf.zeros_like(self.sse))
        self.n.assign(0.0)

    def update(self, pred, truth):
        self.sse.assign_add(tf.reduce_sum(tf.reduce_mean(self.w * tf.square(pred - truth), axis=[1, 2]), axis=0))
        self.n.assign_add(tf.cast(tf.shape(pred)[0], tf.float32))

    def global_result(self):
        sse = hvd.allreduce(self.sse, op=hvd.Sum, name="rmse_sse")
        n = hvd.allreduce(self.n, op=hvd.Sum, name="rmse_n")
        return tf.sqrt(sse / n).numpy()
