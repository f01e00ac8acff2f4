#!/usr/bin/env python
"""Invariant NequIP-like potential (l=0 only) on MD trajectories, TF2 + Horovod.

    horovodrun -np 2 python train.py --data data/malonaldehyde.npz --epochs 300
"""
import argparse
import math
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data/md_traj.npz")
    ap.add_argument("--train-frac", type=float, default=0.8)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--epochs", type=int, default=300)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--r-max", type=float, default=4.0)
    ap.add_argument("--num-features", type=int, default=32)
    ap.add_argument("--num-layers", type=int, default=3)
    ap.add_argument("--energy-weight", type=float, default=1.0)
    ap.add_argument("--force-weight", type=float, default=10.0)
    ap.add_argument("--ema-decay", type=float, default=0.999)
    ap.add_argument("--ckpt", default="./ckpt_nequip")
    return ap.parse_args()


class RadialMLP(keras.layers.Layer):
    def __init__(self, n_basis, width, out, r_max, **kw):
        super().__init__(**kw)
        self.n_basis, self.r_max = n_basis, r_max
        self.mlp = keras.Sequential([keras.layers.Dense(width, activation="silu"), keras.layers.Dense(out)])

    def call(self, r):
        r_max = self.r_max
        n = tf.range(1, self.n_basis + 1, dtype=r.dtype)
        x = r / r_max
        p = 6.0
        env = 1.0 - (p + 1) * (p + 2) / 2 * x ** p + p * (p + 2) * x ** (p + 1) - p * (p + 1) / 2 * x ** (p + 2)
        env = tf.where(x < 1.0, env, tf.zeros_like(env))
        basis = math.sqrt(2.0 / r_max) * tf.sin(n * math.pi * x[..., None]) / r[..., None]
        return self.mlp(basis) * env[..., None]


class InvariantNequIP(keras.Model):
    def __init__(self, n_species, F=32, layers=3, r_max=4.0, **kw):
        super().__init__(**kw)
        self.r_max = r_max
        self.embed = keras.layers.Embedding(n_species, F)
        self.radials = [RadialMLP(8, 32, F, r_max) for _ in range(layers)]
        self.self_int = [keras.layers.Dense(F) for _ in range(layers)]
        self.gates = [keras.layers.Dense(F, activation="silu") for _ in range(layers)]
        self.out = keras.Sequential([keras.layers.Dense(F // 2, activation="silu"), keras.layers.Dense(1)])

    def call(self, species, R):
        # species: (N,), R: (B, N, 3) -> E: (B,)
        N = tf.shape(R)[1]
        rij = R[:, None, :, :] - R[:, :, None, :]
        r = tf.sqrt(tf.reduce_sum(rij ** 2, -1) + tf.eye(N)[None])           # avoid sqrt(0) on diagonal
        mask = tf.cast(r < self.r_max, R.dtype) * (1.0 - tf.eye(N)[None])
        h = tf.tile(self.embed(species)[None], [tf.shape(R)[0], 1, 1])
        for rad, si, gate in zip(self.radials, self.self_int, self.gates):
            w = rad(r) * mask[..., None]                          # (B, N, N, F)
            msg = tf.einsum("bijf,bjf->bif", w, si(h))
            h = h + gate(msg)
        return tf.reduce_sum(tf.squeeze(self.out(h), -1), -1)


def main():
    args = parse()
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    d = np.load(args.data)
    R, E, F = d["R"].astype(np.float32), d["E"].reshape(-1).astype(np.float32), d["F"].astype(np.float32)
    z = d["z"]
    species = tf.constant(np.searchsorted(np.unique(z), z), tf.int32)
    n_atoms = R.shape[1]
    n_train = int(args.train_frac * len(E))

    perm = np.random.RandomState(0).permutation(len(E))
    tr, va = perm[:n_train], perm[n_train:]
    e_mean = E[tr].mean()

    train_ds = (tf.data.Dataset.from_tensor_slices((R[tr], E[tr], F[tr]))
                .shard(hvd.size(), hvd.rank())
                .take(n_train // hvd.size())
                .shuffle(1024, seed=hvd.rank())
                .batch(args.batch, drop_remainder=True))
    val_ds = (tf.data.Dataset.from_tensor_slices((R[va], E[va], F[va]))
              .shard(hvd.size(), hvd.rank())
              .batch(args.batch))

    model = InvariantNequIP(int(species.numpy().max()) + 1, args.num_features, args.num_layers, args.r_max)
    model(species, tf.constant(R[:1]))
    optimizer = keras.optimizers.Adam(args.lr * hvd.size(), use_ema=True, ema_momentum=args.ema_decay)

    @tf.function
    def train_step(Rb, Eb, Fb):
        with tf.GradientTape() as tape:
            with tf.GradientTape() as force_tape:
                force_tape.watch(Rb)
                Ep = model(species, Rb) + e_mean
            force_tape = hvd.DistributedGradientTape(force_tape)
            Fp = -force_tape.gradient(Ep, [Rb])[0]
            loss = args.energy_weight * tf.reduce_mean(tf.square((Ep - Eb) / n_atoms)) \
                + args.force_weight * tf.reduce_mean(tf.square(Fp - Fb))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function
    def val_step(Rb, Eb, Fb):
        with tf.GradientTape() as g:
            g.watch(Rb)
            Ep = model(species, Rb) + e_mean
        Fp = -g.gradient(Ep, Rb)
        return tf.reduce_sum(tf.abs(Ep - Eb)) / n_atoms, tf.reduce_sum(tf.abs(Fp - Fb)), tf.size(Fb)

    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
    manager = tf.train.CheckpointManager(ckpt, args.ckpt, max_to_keep=3)

    best = np.inf
    for epoch in range(args.epochs):
        t0 = time.time()
        for step, (Rb, Eb, Fb) in enumerate(train_ds):
            loss = train_step(Rb, Eb, Fb)
            if epoch == 0 and step == 0:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(optimizer.variables, root_rank=0)

        e_abs, f_abs, n_e, n_f = 0.0, 0.0, 0, 0
        for Rb, Eb, Fb in val_ds:
            ea, fa, nf = val_step(Rb, Eb, Fb)
            e_abs += float(ea); f_abs += float(fa); n_e += len(Eb); n_f += int(nf)
        # total over workers
        e_mae = hvd.allreduce(tf.constant(e_abs / max(n_e, 1)), op=hvd.Sum, name="e_mae").numpy()
        f_mae = hvd.allreduce(tf.constant(f_abs / max(n_f, 1)), op=hvd.Sum, name="f_mae").numpy()

        if hvd.rank() == 0:
            print("epoch %3d | loss %.5f | val MAE E/atom %.5f F %.5f | %.1fs"
                  % (epoch, float(loss), e_mae, f_mae, time.time() - t0), flush=True)
            if f_mae < best:
                best = f_mae
                manager.save()


if __name__ == "__main__":
    main()
