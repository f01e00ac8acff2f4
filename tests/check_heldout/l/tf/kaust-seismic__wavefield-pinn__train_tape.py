"""Physics-informed network for the 2-D acoustic wavefield (Marmousi receivers), multi-GPU.

    horovodrun -np 8 python train_tape.py --obs data/marmousi_receivers.npz --steps 200000
"""
import argparse

import numpy as np
import tensorflow as tf
from tensorflow import keras
import horovod.tensorflow as hvd

from pinn import Trainer, WavefieldNet, load_observations, make_collocation, observation_dataset


def build_velocity_fn(grid, extent):
    (x0, x1), (z0, z1), _ = extent
    grid = tf.constant(grid)
    nz, nx = grid.shape

    def velocity(x, z):
        ix = tf.cast(tf.clip_by_value((x - x0) / (x1 - x0) * (nx - 1), 0, nx - 1), tf.int32)
        iz = tf.cast(tf.clip_by_value((z - z0) / (z1 - z0) * (nz - 1), 0, nz - 1), tf.int32)
        return tf.gather_nd(grid, tf.stack([iz, ix], axis=1))

    return velocity


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--obs", required=True)
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--batch-size", type=int, default=4096)
    parser.add_argument("--n-collocation", type=int, default=8192)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--pde-weight", type=float, default=1e-2)
    parser.add_argument("--ckpt-dir", default="ckpt/pinn")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    # different collocation points and shuffles on every worker
    keras.utils.set_random_seed(args.seed + hvd.rank())
    rng = np.random.default_rng(args.seed + hvd.rank())

    xzt, u, velocity, extent = load_observations(args.obs)
    obs_ds = observation_dataset(xzt, u, args.batch_size, seed=args.seed)
    velocity_fn = build_velocity_fn(velocity, extent)

    model = WavefieldNet()
    # Horovod: the effective batch is batch_size * hvd.size()
    optimizer = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())

    cfg = dict(lr=args.lr, warmup_steps=2000, pde_weight=args.pde_weight, log_every=500,
               ckpt_every=5000, ckpt_dir=args.ckpt_dir)
    trainer = Trainer(model, optimizer, velocity_fn, cfg)
    trainer.fit(obs_ds, lambda: make_collocation(extent, args.n_collocation, rng), args.steps)


if __name__ == "__main__":
    main()
