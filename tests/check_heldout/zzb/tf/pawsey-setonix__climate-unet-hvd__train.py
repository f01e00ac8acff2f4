"""Downscaling U-Net for gridded climate fields, data-parallel with Horovod (Keras 3 + TF backend).

Setonix job script (jobs/train_4node.slurm):
    export OMP_NUM_THREADS=8
    srun -N 4 -n 32 -c 8 --gpus-per-node=8 python train.py --data /scratch/pawsey0001/era5_tiles
"""
import argparse
import glob
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="/scratch/pawsey0001/era5_tiles")
    p.add_argument("--out", default="/scratch/pawsey0001/runs/unet_downscale")
    p.add_argument("--batch", type=int, default=16, help="per-GCD batch")
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--warmup", type=int, default=3, help="lr warm-up epochs")
    p.add_argument("--filters", type=int, default=32)
    p.add_argument("--val-frac", type=float, default=0.1)
    p.add_argument("--threads", type=int, default=int(os.environ.get("OMP_NUM_THREADS", 8)))
    return p.parse_args()


def load_tiles(root, val_frac, seed=0):
    files = sorted(glob.glob(os.path.join(root, "*.npz")))
    if files:
        xs, ys = [], []
        for f in files:
            d = np.load(f)
            xs.append(d["coarse"])
            ys.append(d["fine"])
        x, y = np.concatenate(xs), np.concatenate(ys)
    else:  # smoke-test mode
        rng = np.random.default_rng(seed)
        y = rng.normal(size=(512, 64, 64, 1)).astype("float32")
        x = np.repeat(np.repeat(y[:, ::4, ::4], 4, axis=1), 4, axis=2)
        x = np.concatenate([x, rng.normal(size=x.shape).astype("float32")], axis=-1)
    perm = np.random.default_rng(seed).permutation(len(x))
    n_val = int(len(x) * val_frac)
    val, train = perm[:n_val], perm[n_val:]
    return (x[train], y[train]), (x[val], y[val])


def conv_block(x, f):
    x = keras.layers.Conv2D(f, 3, padding="same", activation="relu")(x)
    return keras.layers.Conv2D(f, 3, padding="same", activation="relu")(x)


def build_unet(shape, f=32):
    inp = keras.Input(shape=shape)
    c1 = conv_block(inp, f)
    c2 = conv_block(keras.layers.MaxPooling2D()(c1), f * 2)
    c3 = conv_block(keras.layers.MaxPooling2D()(c2), f * 4)
    u2 = keras.layers.Concatenate()([keras.layers.UpSampling2D()(c3), c2])
    u1 = keras.layers.Concatenate()([keras.layers.UpSampling2D()(conv_block(u2, f * 2)), c1])
    out = keras.layers.Conv2D(1, 1)(conv_block(u1, f))
    return keras.Model(inp, out, name="downscale_unet")


def main():
    args = get_args()
    hvd.init()
    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    (x, y), (xv, yv) = load_tiles(args.data, args.val_frac)
    train = (tf.data.Dataset.from_tensor_slices((x, y))
             .shard(hvd.size(), hvd.rank())
             .shuffle(2048, seed=hvd.rank())
             .batch(args.batch, drop_remainder=True)
             .repeat()
             .prefetch(tf.data.AUTOTUNE))
    val = (tf.data.Dataset.from_tensor_slices((xv, yv))
           .shard(hvd.size(), hvd.rank())
           .batch(args.batch))
    steps = len(x) // (args.batch * hvd.size())

    model = build_unet(x.shape[1:], args.filters)
    opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
    model.compile(optimizer=hvd.DistributedOptimizer(opt), loss="mse", metrics=["mae"])

    os.makedirs(args.out, exist_ok=True)
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=args.lr * hvd.size(),
                                                 warmup_epochs=args.warmup_epochs,
                                                 steps_per_epoch=steps, verbose=0),
        keras.callbacks.ReduceLROnPlateau(patience=4, factor=0.5),
        keras.callbacks.ModelCheckpoint(os.path.join(args.out, "best.keras"), save_best_only=True),
        keras.callbacks.BackupAndRestore(os.path.join(args.out, "backup")),
    ]
    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.CSVLogger(os.path.join(args.out, "history.csv")))

    t0 = time.time()
    model.fit(train, steps_per_epoch=steps, epochs=args.epochs, validation_data=val,
              callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        print(f"trained {args.epochs} epochs on {hvd.size()} ranks in {time.time() - t0:.0f}s")
        mse, mae = model.evaluate(val, verbose=0)
        print(f"validation mse {mse:.5f} mae {mae:.5f}")


if __name__ == "__main__":
    main()
