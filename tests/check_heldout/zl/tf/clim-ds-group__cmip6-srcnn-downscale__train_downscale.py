"""
Statistical downscaling of daily precipitation (CMIP6-like 1deg -> 0.25deg) with a small
super-resolution CNN. Pairs are stored as npz chunks with arrays 'lr' (N, h, w, C) and 'hr' (N, H, W, 1).

    horovodrun -np 8 python train_downscale.py --data-glob '/data/ds/train_*.npz' --epochs 80
"""
import argparse
import glob
import logging
import os
import sys

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow.keras as hvd

logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(asctime)s | %(message)s")
logger = logging.getLogger("downscale")
VERBOSE = 1 if hvd.rank() == 0 else 0


def parse_args(argv=None):
    p = argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    g = p.add_argument_group("data")
    g.add_argument("--data-glob", default="/data/ds/train_*.npz")
    g.add_argument("--val-glob", default="/data/ds/val_*.npz")
    g.add_argument("--log-transform", action="store_true", help="train on log1p(precip)")
    g = p.add_argument_group("model")
    g.add_argument("--scale", type=int, default=4)
    g.add_argument("--filters", type=int, default=64)
    g.add_argument("--res-blocks", type=int, default=8)
    g = p.add_argument_group("optimisation")
    g.add_argument("--batch-size", type=int, default=16, help="per worker")
    g.add_argument("--epochs", type=int, default=80)
    g.add_argument("--base-lr", type=float, default=2e-4)
    g.add_argument("--warmup-epochs", type=int, default=3)
    g.add_argument("--mass-weight", type=float, default=0.1, help="weight of the coarse-mass conservation term")
    g = p.add_argument_group("output")
    g.add_argument("--out", default="./out/srcnn")
    g.add_argument("--save-freq", type=int, default=5, help="epochs between checkpoints")
    return p.parse_args(argv)


def load_pairs(pattern, log_transform):
    files = sorted(glob.glob(pattern))
    if not files:
        raise SystemExit(f"no files match {pattern}")
    lo = np.concatenate([np.load(f)["lr"] for f in files]).astype(np.float32)
    hi = np.concatenate([np.load(f)["hr"] for f in files]).astype(np.float32)
    if log_transform:
        lo, hi = np.log1p(lo), np.log1p(hi)
    return lo, hi


def res_block(x, filters):
    y = layers.Conv2D(filters, 3, padding="same", activation="relu")(x)
    y = layers.Conv2D(filters, 3, padding="same")(y)
    return layers.Add()([x, y])


def build_model(in_shape, scale, filters, n_blocks):
    inp = keras.Input(shape=in_shape)
    x = layers.Conv2D(filters, 3, padding="same")(inp)
    skip = x
    for _ in range(n_blocks):
        x = res_block(x, filters)
    x = layers.Add()([x, skip])
    x = layers.Conv2D(filters * scale * scale, 3, padding="same")(x)
    x = layers.Lambda(lambda t: tf.nn.depth_to_space(t, scale))(x)
    out = layers.Conv2D(1, 3, padding="same", activation="softplus")(x)
    return keras.Model(inp, out, name="srcnn")


def mass_conserving_loss(scale, weight):
    """MSE on the fine grid + penalty on the coarse-grained (block mean) mismatch."""
    pool = layers.AveragePooling2D(scale)

    def loss(y_true, y_pred):
        mse = tf.reduce_mean(tf.square(y_true - y_pred))
        mass = tf.reduce_mean(tf.square(pool(y_true) - pool(y_pred)))
        return mse + weight * mass
    return loss


def main():
    args = parse_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    x_tr, y_tr = load_pairs(args.data_glob, args.log_transform)
    x_va, y_va = load_pairs(args.val_glob, args.log_transform)
    n_per_rank = len(x_tr) // hvd.size()
    train = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr))
             .shard(hvd.size(), hvd.rank())
             .take(n_per_rank)
             .shuffle(2048)
             .repeat()
             .batch(args.batch_size)
             .prefetch(tf.data.AUTOTUNE))
    val = tf.data.Dataset.from_tensor_slices((x_va, y_va)).batch(args.batch_size)
    steps = n_per_rank // args.batch_size

    model = build_model(x_tr.shape[1:], args.scale, args.filters, args.res_blocks)
    lr = args.base_lr * hvd.size()
    model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=lr)),
                  loss=mass_conserving_loss(args.scale, args.mass_weight),
                  metrics=[keras.metrics.RootMeanSquaredError(name="rmse")])

    cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
           hvd.callbacks.MetricAverageCallback(),
           hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=args.warmup_epochs,
                                                    steps_per_epoch=steps, verbose=VERBOSE)]
    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, "ckpt_{epoch:03d}.weights.h5"),
                                                   save_weights_only=True, save_freq=args.save_freq * steps))
        logger.info("training on %d workers, %d samples each, lr %.2e", hvd.size(), n_per_rank, lr)

    hist = model.fit(train, steps_per_epoch=steps, epochs=args.epochs, validation_data=val,
                     callbacks=cbs, verbose=VERBOSE)
    if hvd.rank() == 0:
        model.save(os.path.join(args.out, "final.keras"))
        np.save(os.path.join(args.out, "history.npy"), hist.history)


if __name__ == "__main__":
    main()
