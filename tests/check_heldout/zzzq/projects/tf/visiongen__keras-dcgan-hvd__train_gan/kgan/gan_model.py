import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow as hvd


def generator(latent_dim, size):
    s = size // 16
    return keras.Sequential([
        keras.Input((latent_dim,)), layers.Dense(s * s * 512), layers.Reshape((s, s, 512)),
        layers.Conv2DTranspose(256, 4, 2, "same"), layers.BatchNormalization(), layers.LeakyReLU(0.2),
        layers.Conv2DTranspose(128, 4, 2, "same"), layers.BatchNormalization(), layers.LeakyReLU(0.2),
        layers.Conv2DTranspose(64, 4, 2, "same"), layers.BatchNormalization(), layers.LeakyReLU(0.2),
        layers.Conv2DTranspose(3, 4, 2, "same", activation="tanh")], name="generator")


def discriminator(size):
    return keras.Sequential([
        keras.Input((size, size, 3)),
        layers.Conv2D(64, 4, 2, "same"), layers.LeakyReLU(0.2),
        layers.Conv2D(128, 4, 2, "same"), layers.BatchNormalization(), layers.LeakyReLU(0.2),
        layers.Conv2D(256, 4, 2, "same"), layers.BatchNormalization(), layers.LeakyReLU(0.2),
        layers.Flatten(), layers.Dropout(0.2), layers.Dense(1)], name="discriminator")


class DCGAN(keras.Model):
    def __init__(self, discriminator, generator, latent_dim, label_smoothing=0.0):
        super().__init__()
        self.discriminator = discriminator
        self.generator = generator
        self.latent_dim = latent_dim
        self.smooth = label_smoothing

    def compile(self, d_optimizer, g_optimizer):
        super().compile()
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer
        self.bce = keras.losses.BinaryCrossentropy(from_logits=True)
        self.d_loss_metric = keras.metrics.Mean(name="d_loss")
        self.g_loss_metric = keras.metrics.Mean(name="g_loss")

    @property
    def metrics(self):
        return [self.d_loss_metric, self.g_loss_metric]

    def train_step(self, real_images):
        batch = tf.shape(real_images)[0]
        z = tf.random.normal((batch, self.latent_dim))
        fake = self.generator(z, training=True)
        with tf.GradientTape() as tape:
            real_logits = self.discriminator(real_images, training=True)
            fake_logits = self.discriminator(fake, training=True)
            d_loss = self.bce(tf.ones_like(real_logits) * (1.0 - self.smooth), real_logits) + \
                self.bce(tf.zeros_like(fake_logits), fake_logits)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(d_loss, self.discriminator.trainable_weights)
        self.d_optimizer.apply_gradients(zip(grads, self.discriminator.trainable_weights))

        z = tf.random.normal((batch, self.latent_dim))
        with tf.GradientTape() as tape:
            logits = self.discriminator(self.generator(z, training=True), training=True)
            g_loss = self.bce(tf.ones_like(logits), logits)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(g_loss, self.generator.trainable_weights)
        self.g_optimizer.apply_gradients(zip(grads, self.generator.trainable_weights))

        self.d_loss_metric.update_state(d_loss)
        self.g_loss_metric.update_state(g_loss)
        return {"d_loss": self.d_loss_metric.result(), "g_loss": self.g_loss_metric.result()}
