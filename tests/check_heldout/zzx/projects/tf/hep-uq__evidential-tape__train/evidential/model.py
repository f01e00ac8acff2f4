import keras
from keras import layers, ops


class NormalInverseGamma(layers.Layer):
    """Outputs (gamma, nu, alpha, beta) of a Normal-Inverse-Gamma distribution."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.dense = layers.Dense(4)

    def call(self, x):
        gamma, lognu, logalpha, logbeta = ops.split(self.dense(x), 4, axis=-1)
        return ops.concatenate([gamma, ops.softplus(lognu), ops.softplus(logalpha) + 1.0,
                                ops.softplus(logbeta)], axis=-1)


def build_regressor(n_features, widths=(128, 128, 64)):
    inp = keras.Input((n_features,))
    x = inp
    for w in widths:
        x = layers.Dense(w, activation="silu")(x)
    return keras.Model(inp, NormalInverseGamma()(x), name="evidential_regressor")
