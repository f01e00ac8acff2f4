"""Learn the one-step propagator of the 1-D acoustic wave equation with a hand-written FNO, evaluate by rollout.

    horovodrun -np 4 python train.py --data data/wave1d_c.npz --epochs 100
"""
import argparse
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from waveop import FNO1d
from waveop.ckpt import Checkpointer
from waveop.data import WaveData
from waveop.evaluate import rollout_errors

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data/wave1d_c.npz")
ap.add_argument("--batch", type=int, default=32)
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--epochs", type=int, default=100)
ap.add_argument("--modes", type=int, default=16)
ap.add_argument("--width", type=int, default=64)
ap.add_argument("--energy-weight", type=float, default=0.01)
ap.add_argument("--ckpt-dir", default="ckpt/fno_wave")
ap.add_argument("--rollout", type=int, default=40)


def energy_penalty(x, pred):
    """Discrete energy drift between the input state and the prediction (soft conservation)."""
    e_in = tf.reduce_sum(tf.square(x[..., 1]), axis=1)
    e_out = tf.reduce_sum(tf.square(pred[..., 0]), axis=1)
    return tf.reduce_mean(tf.square(e_out - e_in) / (tf.square(e_in) + 1e-6))


def main(args):
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    data = WaveData(args.data)
    train_ds, steps = data.train_dataset(args.batch, seed=hvd.rank())

    model = FNO1d(args.modes, args.width)
    schedule = tf.keras.optimizers.schedules.CosineDecay(args.lr * hvd.size(), decay_steps=args.epochs * steps)
    opt = tf.keras.optimizers.Adam(schedule)
    ckpt = Checkpointer(args.ckpt_dir, model, opt)
    start = ckpt.restore()

    @tf.function
    def train_step(x, y, first):
        with tf.GradientTape() as tape:
            pred = model(x, training=True)
            loss = tf.reduce_mean(tf.square(pred - y)) + args.energy_weight * energy_penalty(x, pred)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    for epoch in range(start, args.epochs):
        t0, tot = time.time(), 0.0
        for i, (x, y) in enumerate(train_ds):
            tot += float(train_step(x, y, epoch == start and i == 0))
        errs = rollout_errors(model, data, args.rollout)
        if hvd.rank() == 0:
            print(f"epoch {epoch:3d} {time.time() - t0:5.1f}s train {tot / steps:.3e} "
                  f"rollout relL2 @10 {errs[min(9, len(errs) - 1)]:.3e} @end {errs[-1]:.3e}", flush=True)
        ckpt.save(epoch, float(np.mean(errs)))


if __name__ == "__main__":
    main(ap.parse_args())
