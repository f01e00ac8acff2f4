"""ERA5 -> 4x finer temperature downscaling with a small residual CNN (TF2 custom loop + Horovod).

    mpirun -np 8 -npernode 4 python tf2_hvd_step.py --data /p/scratch/era5_t2m_patches.npz
"""
import os


def local_rank_from_env():
    """Node-local rank as set by the launcher, read before TensorFlow sees the GPUs."""
    for var in ("OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID",
                "HOROVOD_LOCAL_RANK"):
        if var in os.environ:
            return int(os.environ[var])
    return 0


LOCAL_RANK = local_rank_from_env()
# one GPU per process: hide the others before TensorFlow initialises CUDA
os.environ["CUDA_VISIBLE_DEVICES"] = str(LOCAL_RANK)

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import horovod.tensorflow as hvd  # noqa: E402


def residual_cnn(channels=64, blocks=8, scale=4):
    inp = tf.keras.Input((None, None, 3))          # t2m, orography, land-sea mask (coarse)
    x = tf.keras.layers.Conv2D(channels, 3, padding="same")(inp)
    skip = x
    for _ in range(blocks):
        y = tf.keras.layers.Conv2D(channels, 3, padding="same", activation="relu")(x)
        y = tf.keras.layers.Conv2D(channels, 3, padding="same")(y)
        x = tf.keras.layers.Add()([x, y])
    x = tf.keras.layers.Add()([x, skip])
    x = tf.keras.layers.Conv2D(channels * scale * scale, 3, padding="same")(x)
    x = tf.keras.layers.Lambda(lambda t: tf.nn.depth_to_space(t, scale))(x)
    return tf.keras.Model(inp, tf.keras.layers.Conv2D(1, 3, padding="same")(x))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="era5_t2m_patches.npz")
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--ckpt", default="ckpt_downscale")
    args = p.parse_args()

    hvd.init()
    if hvd.local_rank() != LOCAL_RANK:
        raise RuntimeError(f"launcher local rank {LOCAL_RANK} != Horovod local rank {hvd.local_rank()}")

    blob = np.load(args.data)
    x_all, y_all = blob["coarse"].astype(np.float32), blob["fine"].astype(np.float32)
    n_val = len(x_all) // 10
    x_tr, y_tr, x_val, y_val = x_all[n_val:], y_all[n_val:], x_all[:n_val], y_all[:n_val]
    per_rank = len(x_tr) // hvd.size()
    lo = hvd.rank() * per_rank
    train = (tf.data.Dataset.from_tensor_slices((x_tr[lo:lo + per_rank], y_tr[lo:lo + per_rank]))
             .shuffle(per_rank, reshuffle_each_iteration=True)
             .batch(args.batch, drop_remainder=True)
             .prefetch(tf.data.AUTOTUNE))
    vlo = hvd.rank() * (n_val // hvd.size())
    val = tf.data.Dataset.from_tensor_slices((x_val[vlo:vlo + n_val // hvd.size()],
                                              y_val[vlo:vlo + n_val // hvd.size()])).batch(64)

    model = residual_cnn()
    steps_per_epoch = per_rank // args.batch
    boundaries = [steps_per_epoch * e for e in (int(args.epochs * 0.6), int(args.epochs * 0.85))]
    peak = args.lr * hvd.size()
    schedule = tf.keras.optimizers.schedules.PiecewiseConstantDecay(boundaries, [peak, peak / 10, peak / 100])
    opt = tf.keras.optimizers.Adam(schedule)

    @tf.function
    def step(x, y, first):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    ckpt = tf.train.Checkpoint(model=model, opt=opt)
    manager = tf.train.CheckpointManager(ckpt, args.ckpt, max_to_keep=2)
    first = True
    for epoch in range(args.epochs):
        t0 = time.time()
        for x, y in train:
            step(x, y, first)
            first = False
        sq_err, count = 0.0, 0.0
        for x, y in val:
            sq_err += float(tf.reduce_sum(tf.square(model(x, training=False) - y)))
            count += float(tf.size(y))
        totals = hvd.allreduce(tf.constant([sq_err, count], dtype=tf.float64), op=hvd.Sum)
        rmse = float(tf.sqrt(totals[0] / totals[1]))
        if hvd.rank() == 0:
            print(f"epoch {epoch}: val RMSE {rmse:.3f} K  ({time.time() - t0:.0f}s)", flush=True)
            manager.save()


if __name__ == "__main__":
    main()
