"""Hyperspectral land-cover classification (airborne AVIRIS-NG cube, 224 bands -> 30 PCA components).

3D-2D CNN on 11x11 spatial patches around each labelled pixel.
    horovodrun -np 8 python train.py --cube /ibex/rs/hsi/jeddah_pca30.npy --gt /ibex/rs/hsi/jeddah_gt.npy
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.keras as hvd


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cube", default="/ibex/rs/hsi/jeddah_pca30.npy")
    ap.add_argument("--gt", default="/ibex/rs/hsi/jeddah_gt.npy")
    ap.add_argument("--out", default="models/hsi_3d2d")
    ap.add_argument("--patch", type=int, default=11)
    ap.add_argument("--test-frac", type=float, default=0.7)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--seed", type=int, default=345)
    return ap.parse_args()


def extract_patches(cube, gt, patch):
    r = patch // 2
    padded = np.pad(cube, ((r, r), (r, r), (0, 0)), mode="reflect")
    rows, cols = np.nonzero(gt)
    x = np.stack([padded[i:i + patch, j:j + patch] for i, j in zip(rows, cols)]).astype(np.float32)
    return x[..., None], (gt[rows, cols] - 1).astype(np.int32)


def hybrid_sn(input_shape, n_classes):
    inp = keras.Input(input_shape)
    x = layers.Conv3D(8, (3, 3, 7), activation="relu")(inp)
    x = layers.Conv3D(16, (3, 3, 5), activation="relu")(x)
    x = layers.Conv3D(32, (3, 3, 3), activation="relu")(x)
    s = x.shape
    x = layers.Reshape((s[1], s[2], s[3] * s[4]))(x)
    x = layers.Conv2D(64, 3, activation="relu")(x)
    x = layers.Flatten()(x)
    x = layers.Dropout(0.4)(layers.Dense(256, activation="relu")(x))
    x = layers.Dropout(0.4)(layers.Dense(128, activation="relu")(x))
    return keras.Model(inp, layers.Dense(n_classes, activation="softmax")(x), name="hybridsn")


def main():
    args = get_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    cube, gt = np.load(args.cube), np.load(args.gt)
    x, y = extract_patches(cube, gt, args.patch)
    n_classes = int(y.max()) + 1

    # identical split on every worker (same seed), then each worker keeps its slice of the training pixels
    rng = np.random.default_rng(args.seed)
    perm = rng.permutation(len(y))
    n_test = int(args.test_frac * len(y))
    test_idx, train_idx = perm[:n_test], perm[n_test:]
    my_idx = np.array_split(train_idx, hvd.size())[hvd.rank()]
    steps_per_epoch = len(train_idx) // (args.batch_size * hvd.size())

    train_ds = (tf.data.Dataset.from_tensor_slices((x[my_idx], y[my_idx]))
                .shuffle(len(my_idx), seed=args.seed + hvd.rank())
                .repeat().batch(args.batch_size).prefetch(tf.data.AUTOTUNE))

    model = hybrid_sn(x.shape[1:], n_classes)
    lr = args.lr * hvd.size()
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=lr))
    model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
                 hvd.callbacks.MetricAverageCallback(),
                 hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=3,
                                                          steps_per_epoch=steps_per_epoch)]
    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, "hybridsn.keras")))
    model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=args.epochs, callbacks=callbacks,
              verbose=2 if hvd.rank() == 0 else 0)

    # the whole test set on every worker: identical numbers everywhere, rank 0 reports them
    loss, acc = model.evaluate(x[test_idx], y[test_idx], batch_size=256, verbose=0)
    if hvd.rank() == 0:
        print(f"test OA {acc:.4f}  loss {loss:.4f}  ({len(test_idx)} pixels, {n_classes} classes)")


if __name__ == "__main__":
    main()
