import tensorflow as tf
import keras
from keras import layers, ops
import horovod.tensorflow as hvd

N_CLASSES = 10


def build_generator(latent_dim):
    z = keras.Input((latent_dim,))
    c = keras.Input((), dtype="int32")
    e = layers.Embedding(N_CLASSES, 50)(c)
    h = layers.Concatenate()([z, e])
    h = layers.Dense(4 * 4 * 256)(h)
    h = layers.LeakyReLU(0.2)(layers.BatchNormalization()(h))
    h = layers.Reshape((4, 4, 256))(h)
    for f in (128, 64, 32):
        h = layers.Conv2DTranspose(f, 4, 2, "same")(h)
        h = layers.LeakyReLU(0.2)(layers.BatchNormalization()(h))
    out = layers.Conv2D(3, 3, padding="same", activation="tanh")(h)
    return keras.Model([z, c], out, name="G")


def build_discriminator():
    x = keras.Input((32, 32, 3))
    c = keras.Input((), dtype="int32")
    e = layers.Reshape((32, 32, 1))(layers.Dense(32 * 32)(layers.Embedding(N_CLASSES, 50)(c)))
    h = layers.Concatenate()([x, e])
    for f in (64, 128, 256):
        h = layers.LeakyReLU(0.2)(layers.Conv2D(f, 4, 2, "same")(h))
    h = layers.Dropout(0.3)(layers.Flatten()(h))
    return keras.Model([x, c], layers.Dense(1)(h), name="D")


class ConditionalGAN(keras.Model):
    def __init__(self, latent_dim):
        super().__init__()
        self.latent_dim = latent_dim
        self.generator = build_generator(latent_dim)
        self.discriminator = build_discriminator()
        self.gen_loss_tracker = keras.metrics.Mean(name="generator_loss")
        self.disc_loss_tracker = keras.metrics.Mean(name="discriminator_loss")

    @property
    def metrics(self):
        return [self.gen_loss_tracker, self.disc_loss_tracker]

    def compile(self, d_optimizer, g_optimizer, loss_fn):
        super().compile()
        self.d_optimizer, self.g_optimizer, self.loss_fn = d_optimizer, g_optimizer, loss_fn

    def train_step(self, data):
        real, labels = data
        bs = ops.shape(real)[0]
        z = keras.random.normal((bs, self.latent_dim))
        fake = self.generator([z, labels])
        with tf.GradientTape() as tape:
            pr = self.discriminator([real, labels])
            pf = self.discriminator([fake, labels])
            d_loss = self.loss_fn(ops.ones_like(pr), pr) + self.loss_fn(ops.zeros_like(pf), pf)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(d_loss, self.discriminator.trainable_weights)
        self.d_optimizer.apply_gradients(zip(grads, self.discriminator.trainable_weights))

        z = keras.random.normal((bs, self.latent_dim))
        with tf.GradientTape() as tape:
            pf = self.discriminator([self.generator([z, labels]), labels])
            g_loss = self.loss_fn(ops.ones_like(pf), pf)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(g_loss, self.generator.trainable_weights)
        self.g_optimizer.apply_gradients(zip(grads, self.generator.trainable_weights))

        self.gen_loss_tracker.update_state(g_loss)
        self.disc_loss_tracker.update_state(d_loss)
        return {"g_loss": self.gen_loss_tracker.result(), "d_loss": self.disc_loss_tracker.result()}
