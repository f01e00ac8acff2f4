"""Conditional VAE on Fashion-MNIST with a custom train_step, distributed with Horovod.

    horovodrun -np 4 python cvae_fit.py --epochs 40 --latent-dim 8
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow.keras as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=40)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--latent-dim", type=int, default=8)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--beta", type=float, default=1.0)
parser.add_argument("--out", default="cvae_out")
args = parser.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

NUM_CLASSES = 10


class Sampling(layers.Layer):
    def call(self, inputs):
        mu, logvar = inputs
        eps = keras.random.normal(tf.shape(mu))
        return mu + tf.exp(0.5 * logvar) * eps


def build_encoder(latent_dim):
    img = keras.Input((28, 28, 1))
    lab = keras.Input((NUM_CLASSES,))
    h = layers.Conv2D(32, 3, strides=2, padding="same", activation="relu")(img)
    h = layers.Conv2D(64, 3, strides=2, padding="same", activation="relu")(h)
    h = layers.Concatenate()([layers.Flatten()(h), lab])
    h = layers.Dense(128, activation="relu")(h)
    mu = layers.Dense(latent_dim, name="mu")(h)
    logvar = layers.Dense(latent_dim, name="logvar")(h)
    z = Sampling()([mu, logvar])
    return keras.Model([img, lab], [mu, logvar, z], name="encoder")


def build_decoder(latent_dim):
    z = keras.Input((latent_dim,))
    lab = keras.Input((NUM_CLASSES,))
    h = layers.Concatenate()([z, lab])
    h = layers.Dense(7 * 7 * 64, activation="relu")(h)
    h = layers.Reshape((7, 7, 64))(h)
    h = layers.Conv2DTranspose(64, 3, strides=2, padding="same", activation="relu")(h)
    h = layers.Conv2DTranspose(32, 3, strides=2, padding="same", activation="relu")(h)
    out = layers.Conv2DTranspose(1, 3, padding="same")(h)
    return keras.Model([z, lab], out, name="decoder")


class CVAE(keras.Model):
    def __init__(self, encoder, decoder, beta=1.0, **kw):
        super().__init__(**kw)
        self.encoder, self.decoder, self.beta = encoder, decoder, beta
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.recon_tracker = keras.metrics.Mean(name="recon")
        self.kl_tracker = keras.metrics.Mean(name="kl")

    @property
    def metrics(self):
        return [self.loss_tracker, self.recon_tracker, self.kl_tracker]

    def _elbo_terms(self, x, y):
        mu, logvar, z = self.encoder([x, y])
        logits = self.decoder([z, y])
        recon = tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(labels=x, logits=logits), axis=[1, 2, 3])
        kl = -0.5 * tf.reduce_sum(1 + logvar - tf.square(mu) - tf.exp(logvar), axis=1)
        return tf.reduce_mean(recon), tf.reduce_mean(kl)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            recon, kl = self._elbo_terms(x, y)
            loss = recon + self.beta * kl
        grads = tape.gradient(loss, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        self.loss_tracker.update_state(loss)
        self.recon_tracker.update_state(recon)
        self.kl_tracker.update_state(kl)
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        x, y = data
        recon, kl = self._elbo_terms(x, y)
        self.loss_tracker.update_state(recon + self.beta * kl)
        self.recon_tracker.update_state(recon)
        self.kl_tracker.update_state(kl)
        return {m.name: m.result() for m in self.metrics}

    def call(self, inputs):
        return self.decoder([self.encoder(inputs)[2], inputs[1]])


(x_train, y_train), (x_test, y_test) = keras.datasets.fashion_mnist.load_data()
x_train = (x_train[..., None] / 255.0).astype("float32")
x_test = (x_test[..., None] / 255.0).astype("float32")
y_train = keras.utils.to_categorical(y_train, NUM_CLASSES).astype("float32")
y_test = keras.utils.to_categorical(y_test, NUM_CLASSES).astype("float32")

train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .shuffle(10000).batch(args.batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE))
test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(512)

model = CVAE(build_encoder(args.latent_dim), build_decoder(args.latent_dim), beta=args.beta)
model([x_train[:1], y_train[:1]])  # build the weights before callbacks touch them
scaled_lr = args.lr * hvd.size()
opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
model.compile(optimizer=opt)

callbacks = [
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=3, verbose=1),
    keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=4),
]
if hvd.rank() == 0:
    os.makedirs(args.out, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, "cvae.weights.h5"),
                                                     save_weights_only=True))
    callbacks.append(keras.callbacks.CSVLogger(os.path.join(args.out, "history.csv")))

model.fit(train_ds, epochs=args.epochs, validation_data=test_ds, callbacks=callbacks,
          verbose=1 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    # one row of generated samples per class
    z = np.random.normal(size=(NUM_CLASSES * 8, args.latent_dim)).astype("float32")
    labels = np.repeat(np.eye(NUM_CLASSES, dtype="float32"), 8, axis=0)
    samples = tf.sigmoid(model.decoder.predict([z, labels], verbose=0)).numpy()
    np.save(os.path.join(args.out, "samples.npy"), samples)
