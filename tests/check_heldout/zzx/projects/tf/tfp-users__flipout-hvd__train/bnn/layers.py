import keras
from keras import ops


@keras.saving.register_keras_serializable(package="bnn")
class DenseVariational(keras.layers.Layer):
    """Mean-field Gaussian dense layer; adds KL(q||p) / num_examples to the model losses."""

    def __init__(self, units, num_examples, prior_std=1.0, activation=None, **kwargs):
        super().__init__(**kwargs)
        self.units, self.num_examples, self.prior_std = units, num_examples, prior_std
        self.activation = keras.activations.get(activation)
        self.seed = keras.random.SeedGenerator(1337)

    def build(self, input_shape):
        d = input_shape[-1]
        self.w_mu = self.add_weight(shape=(d, self.units), initializer="glorot_uniform", name="w_mu")
        self.w_rho = self.add_weight(shape=(d, self.units), initializer=keras.initializers.Constant(-5.0), name="w_rho")
        self.b = self.add_weight(shape=(self.units,), initializer="zeros", name="b")

    def call(self, x):
        sigma = ops.softplus(self.w_rho)
        mean = ops.matmul(x, self.w_mu)
        std = ops.sqrt(ops.matmul(ops.square(x), ops.square(sigma)) + 1e-12)
        out = mean + std * keras.random.normal(ops.shape(mean), seed=self.seed) + self.b
        kl = ops.sum(ops.log(self.prior_std / sigma)
                     + (ops.square(sigma) + ops.square(self.w_mu)) / (2.0 * self.prior_std ** 2) - 0.5)
        self.add_loss(kl / self.num_examples)
        return self.activation(out)

    def get_config(self):
        cfg = super().get_config()
        cfg.update(units=self.units, num_examples=self.num_examples, prior_std=self.prior_std,
                   activation=keras.activations.serialize(self.activation))
        return cfg


def build_bnn(input_dim, num_classes, num_examples, hidden=(256, 256)):
    inputs = keras.Input((input_dim,))
    x = inputs
    for h in hidden:
        x = DenseVariational(h, num_examples, activation="relu")(x)
    outputs = DenseVariational(num_classes, num_examples)(x)
    return keras.Model(inputs, outputs, name="bnn")
