"""Variational autoencoder over aligned protein sequences (one-hot MSA rows), DeepSequence-style.

Trained with Keras fit on several GPUs through Horovod:
    horovodrun -np 4 python train_vae.py --msa data/BLAT_ECOLX.a2m --epochs 300
"""
import argparse
import os

import numpy as np
import tensorflow as tf
from tensorflow import keras
import horovod.tensorflow.keras as hvd

AA = "ACDEFGHIKLMNPQRSTVWY-"


def read_a2m(path, max_gap_frac=0.5):
    seqs, cur = [], []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith(">"):
                if cur:
                    seqs.append("".join(cur))
                cur = []
            else:
                cur.append(line)
    if cur:
        seqs.append("".join(cur))
    # keep match columns (upper case and gaps) of the query
    cols = [i for i, c in enumerate(seqs[0]) if c.isupper() or c == "-"]
    seqs = ["".join(s[i] for i in cols).upper().replace(".", "-") for s in seqs]
    seqs = [s for s in seqs if s.count("-") / len(s) <= max_gap_frac]
    idx = {a: i for i, a in enumerate(AA)}
    onehot = np.zeros((len(seqs), len(cols), len(AA)), np.float32)
    for n, s in enumerate(seqs):
        for i, c in enumerate(s):
            onehot[n, i, idx.get(c, len(AA) - 1)] = 1.0
    return onehot


def sequence_weights(onehot, theta=0.2):
    """1 / number of neighbours within Hamming distance theta (reweights redundant sequences)."""
    flat = onehot.reshape(len(onehot), -1)
    L = onehot.shape[1]
    sim = flat @ flat.T / L
    return (1.0 / (sim > 1 - theta).sum(1)).astype(np.float32)


class Sampling(keras.layers.Layer):
    def call(self, inputs):
        mu, logvar = inputs
        return mu + tf.exp(0.5 * logvar) * tf.random.normal(tf.shape(mu))


class ProteinVAE(keras.Model):
    def __init__(self, seq_len, alphabet=21, latent=30, hidden=(1500, 1500), **kw):
        super().__init__(**kw)
        self.seq_len, self.alphabet = seq_len, alphabet
        self.enc = keras.Sequential([keras.layers.Flatten()] +
                                    [keras.layers.Dense(h, activation="relu") for h in hidden])
        self.mu = keras.layers.Dense(latent)
        self.logvar = keras.layers.Dense(latent)
        self.sample = Sampling()
        self.dec = keras.Sequential([keras.layers.Dense(h, activation="relu") for h in hidden[::-1]] +
                                    [keras.layers.Dense(seq_len * alphabet),
                                     keras.layers.Reshape((seq_len, alphabet))])
        self.elbo_tracker = keras.metrics.Mean(name="neg_elbo")
        self.kl_tracker = keras.metrics.Mean(name="kl")

    @property
    def metrics(self):
        return [self.elbo_tracker, self.kl_tracker]

    def call(self, x, training=False):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        return self.dec(self.sample([mu, logvar])), mu, logvar

    def _neg_elbo_and_kl(self, x, w):
        logits, mu, logvar = self(x, training=True)
        recon = tf.reduce_sum(tf.nn.softmax_cross_entropy_with_logits(labels=x, logits=logits), axis=1)
        kl = -0.5 * tf.reduce_sum(1 + logvar - tf.square(mu) - tf.exp(logvar), axis=1)
        neg_elbo = tf.reduce_sum(w * (recon + kl)) / tf.reduce_sum(w)
        return neg_elbo, tf.reduce_mean(kl)

    def train_step(self, data):
        x, w = data
        with tf.GradientTape() as tape:
            neg_elbo, kl = self._neg_elbo_and_kl(x, w)
        grads = tape.gradient(neg_elbo, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        self.elbo_tracker.update_state(neg_elbo)
        self.kl_tracker.update_state(kl)
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        x, w = data
        neg_elbo, kl = self._neg_elbo_and_kl(x, w)
        self.elbo_tracker.update_state(neg_elbo)
        self.kl_tracker.update_state(kl)
        return {m.name: m.result() for m in self.metrics}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--msa", required=True)
    ap.add_argument("--epochs", type=int, default=300)
    ap.add_argument("--batch-size", type=int, default=100)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--out", default="runs/protein_vae")
    args = ap.parse_args()

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    x = read_a2m(args.msa)
    w = sequence_weights(x)
    ds = tf.data.Dataset.from_tensor_slices((x, w))
    ds = ds.shuffle(len(x)).shard(hvd.size(), hvd.rank())
    ds = ds.batch(args.batch_size, drop_remainder=True).repeat().prefetch(tf.data.AUTOTUNE)
    steps = len(x) // (args.batch_size * hvd.size())

    model = ProteinVAE(seq_len=x.shape[1])
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=args.lr * hvd.size()))

    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
                 hvd.callbacks.MetricAverageCallback()]
    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, "vae.weights.h5"),
                                                         save_weights_only=True))
    model.fit(ds, epochs=args.epochs, steps_per_epoch=steps, callbacks=callbacks,
              verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
