import math
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd


class SampleGrid(keras.callbacks.Callback):
    def __init__(self, workdir, latent_dim):
        super().__init__()
        self.workdir = workdir
        self.z = np.random.RandomState(3).randn(100, latent_dim).astype("float32")
        self.c = np.repeat(np.arange(10), 10).astype("int32")

    def on_epoch_end(self, epoch, logs=None):
        x = self.model.generator.predict([self.z, self.c], verbose=0)
        x = ((x + 1) * 127.5).clip(0, 255).astype("uint8").reshape(10, 10, 32, 32, 3)
        keras.utils.save_img(os.path.join(self.workdir, "grid_%03d.png" % epoch),
                             x.transpose(0, 2, 1, 3, 4).reshape(320, 320, 3), scale=False)


class ISLikeScore(keras.callbacks.Callback):
    """Inception-score-like number from a small classifier trained beforehand (or random when missing).
    Every worker scores its own samples; the marginal and the KL terms are allreduced."""

    def __init__(self, n, latent_dim, clf_path=None):
        super().__init__()
        self.n, self.latent_dim = n, latent_dim
        self.clf = keras.models.load_model(clf_path) if clf_path and os.path.exists(clf_path) else \
            keras.Sequential([keras.Input((32, 32, 3)), keras.layers.GlobalAveragePooling2D(),
                              keras.layers.Dense(10, activation="softmax")])

    def on_epoch_end(self, epoch, logs=None):
        z = tf.random.normal((self.n, self.latent_dim))
        c = tf.random.uniform((self.n,), 0, 10, dtype=tf.int32)
        p = self.clf(self.model.generator([z, c], training=False))
        py = hvd.allreduce(tf.reduce_mean(p, 0), op=hvd.Average, name="is_py")
        kl = tf.reduce_mean(tf.reduce_sum(p * (tf.math.log(p + 1e-12) - tf.math.log(py + 1e-12)), 1))
        kl = hvd.allreduce(kl, op=hvd.Average, name="is_kl")
        if logs is not None:
            logs["is_like"] = float(math.exp(float(kl)))
