import keras
import tensorflow as tf
from keras import layers


def mass_balance(head, logk):
    """Residual of div(K grad h) on interior cells (wells are excluded by the caller)."""
    k = tf.exp(logk)
    kx = 0.5 * (k[:, :, 1:] + k[:, :, :-1])
    ky = 0.5 * (k[:, 1:, :] + k[:, :-1, :])
    fx = kx * (head[:, :, 1:] - head[:, :, :-1])
    fy = ky * (head[:, 1:, :] - head[:, :-1, :])
    return (fx[:, 1:-1, 1:] - fx[:, 1:-1, :-1]) + (fy[:, 1:, 1:-1] - fy[:, :-1, 1:-1])


class PhysicsCNN(keras.Model):
    """Encoder-decoder CNN whose training loss adds the mass-balance residual to the data misfit."""

    def __init__(self, mass_weight=0.05, **kw):
        super().__init__(**kw)
        self.mass_weight = mass_weight
        self.enc = [layers.Conv2D(f, 3, strides=s, padding="same", activation="gelu")
                    for f, s in ((32, 1), (64, 2), (128, 2))]
        self.dec = [layers.Conv2DTranspose(f, 3, strides=2, padding="same", activation="gelu") for f in (64, 32)]
        self.head = layers.Conv2D(1, 1)

    def call(self, x, training=False):
        h = x
        for l in self.enc + self.dec:
            h = l(h)
        return self.head(h)

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        data = tf.reduce_mean(tf.square(y - y_pred))
        phys = tf.reduce_mean(tf.square(mass_balance(y_pred[..., 0], x[..., 0]) * (1.0 - x[:, 1:-1, 1:-1, 1])))
        return data + self.mass_weight * phys
