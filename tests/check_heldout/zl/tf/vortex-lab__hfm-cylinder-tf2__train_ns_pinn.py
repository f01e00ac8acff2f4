#!/usr/bin/env python3
"""Hidden-fluid-mechanics style PINN: infer (u, v, p) in the wake of a cylinder from scattered
concentration/velocity samples, with the incompressible Navier-Stokes residual as a penalty.

Data (HDF5): /samples/{t,x,y,u,v} (N,), /colloc/{t,x,y} (M,).   Re = 100.

    horovodrun -np 4 python train_ns_pinn.py --h5 data/cylinder_wake.h5 --iters 20000
"""
import argparse
import os
import time

import h5py
import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd


class NSPinn(keras.Model):
    def __init__(self, width=100, depth=8):
        super().__init__()
        self.hidden = [keras.layers.Dense(width, activation="tanh") for _ in range(depth)]
        self.out = keras.layers.Dense(3)      # u, v, p

    def call(self, txy):
        h = txy
        for d in self.hidden:
            h = d(h)
        return self.out(h)


class Trainer:
    def __init__(self, model, lr, re):
        self.model, self.re = model, re
        self.opt = keras.optimizers.Adam(learning_rate=lr)
        self._synced = False

    def residuals(self, t, x, y):
        with tf.GradientTape(persistent=True) as g2:
            g2.watch([x, y])
            with tf.GradientTape(persistent=True) as g1:
                g1.watch([t, x, y])
                uvp = self.model(tf.stack([t, x, y], axis=1))
                u, v, p = uvp[:, 0], uvp[:, 1], uvp[:, 2]
            u_t, u_x, u_y = g1.gradient(u, [t, x, y])
            v_t, v_x, v_y = g1.gradient(v, [t, x, y])
            p_x, p_y = g1.gradient(p, [x, y])
        u_xx, u_yy = g2.gradient(u_x, x), g2.gradient(u_y, y)
        v_xx, v_yy = g2.gradient(v_x, x), g2.gradient(v_y, y)
        del g1, g2
        e1 = u_t + u * u_x + v * u_y + p_x - (u_xx + u_yy) / self.re
        e2 = v_t + u * v_x + v * v_y + p_y - (v_xx + v_yy) / self.re
        e3 = u_x + v_y
        return e1, e2, e3

    @tf.function
    def step(self, data, colloc):
        t, x, y, u, v = data
        tc, xc, yc = colloc
        with tf.GradientTape() as tape:
            pred = self.model(tf.stack([t, x, y], axis=1))
            l_data = tf.reduce_mean((pred[:, 0] - u) ** 2 + (pred[:, 1] - v) ** 2)
            e1, e2, e3 = self.residuals(tc, xc, yc)
            l_pde = tf.reduce_mean(e1 ** 2 + e2 ** 2 + e3 ** 2)
            loss = l_data + l_pde
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.opt.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss, l_data, l_pde

    def train_step(self, data, colloc):
        out = self.step(data, colloc)
        if not self._synced:
            # weights and Adam slots exist only after the first apply_gradients
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.opt.variables, root_rank=0)
            self._synced = True
        return out


def read_rank_slice(path, rank, size):
    """Each rank reads every size-th sample; the collocation set is split the same way."""
    with h5py.File(path, "r") as f:
        n = (f["samples/t"].shape[0] // size) * size
        m = (f["colloc/t"].shape[0] // size) * size
        data = tuple(f[f"samples/{k}"][rank:n:size].astype(np.float32) for k in "txyuv")
        colloc = tuple(f[f"colloc/{k}"][rank:m:size].astype(np.float32) for k in "txy")
    return data, colloc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--h5", default="data/cylinder_wake.h5")
    ap.add_argument("--iters", type=int, default=20000)
    ap.add_argument("--batch", type=int, default=1000, help="data points per rank and step")
    ap.add_argument("--colloc-batch", type=int, default=5000)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--re", type=float, default=100.0)
    ap.add_argument("--ckpt", default="ckpt/ns_pinn")
    ap.add_argument("--print-every", type=int, default=200)
    args = ap.parse_args()

    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    data, colloc = read_rank_slice(args.h5, hvd.rank(), hvd.size())
    data_ds = tf.data.Dataset.from_tensor_slices(data).shuffle(len(data[0])).repeat().batch(args.batch)
    coll_ds = tf.data.Dataset.from_tensor_slices(colloc).shuffle(len(colloc[0])).repeat().batch(args.colloc_batch)

    trainer = Trainer(NSPinn(), lr=args.lr * hvd.size(), re=args.re)
    ckpt = tf.train.Checkpoint(model=trainer.model, opt=trainer.opt)
    manager = tf.train.CheckpointManager(ckpt, args.ckpt, max_to_keep=5) if hvd.rank() == 0 else None

    t0, acc = time.time(), np.zeros(3)
    for it, (d, c) in enumerate(zip(data_ds, coll_ds)):
        if it == args.iters:
            break
        acc += [float(v) for v in trainer.train_step(d, c)]
        if (it + 1) % args.print_every == 0:
            mean = hvd.allreduce(tf.constant(acc / args.print_every), name="loss_window").numpy()
            acc[:] = 0
            if hvd.rank() == 0:
                print(f"it {it + 1:6d}  loss {mean[0]:.3e}  data {mean[1]:.3e}  pde {mean[2]:.3e}"
                      f"  ({time.time() - t0:.0f}s)", flush=True)
                manager.save(checkpoint_number=it + 1)


if __name__ == "__main__":
    main()
