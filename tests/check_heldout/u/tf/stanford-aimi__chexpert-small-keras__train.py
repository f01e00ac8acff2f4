"""CheXpert-small, 5 competition findings, DenseNet-style CNN (Keras 3, horovod.tensorflow.keras).

Run (Sherlock, 2 nodes x 4 GPUs):
    srun -n 8 python train.py --csv /scratch/groups/aimi/chexpert_small/train_u1.csv
"""
import argparse
import csv
import os

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow.keras as hvd

FINDINGS = ["Atelectasis", "Cardiomegaly", "Consolidation", "Edema", "Pleural Effusion"]


def parse_args():
    p = argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--csv", default="/scratch/groups/aimi/chexpert_small/train_u1.csv")
    p.add_argument("--val-csv", default="/scratch/groups/aimi/chexpert_small/valid.csv")
    p.add_argument("--img-root", default="/scratch/groups/aimi")
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--batch-size", type=int, default=24, help="per GPU")
    p.add_argument("--lr", type=float, default=1e-4, help="per-GPU lr, scaled by hvd.size()")
    p.add_argument("--warmup-epochs", type=int, default=2)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--out", default="runs/chexpert_dn")
    return p.parse_args()


def read_csv(path, frontal_only=False):
    with open(path) as f:
        rows = [r for r in csv.DictReader(f) if not frontal_only or r["Frontal/Lateral"] == "Frontal"]
    # U-ones policy already applied in train_u1.csv; blanks are negatives
    labels = np.array([[max(float(r[k] or 0), 0.0) for k in FINDINGS] for r in rows], np.float32)
    return [r["Path"] for r in rows], labels


def dataset(table, args, training, shard=True):
    paths = [os.path.join(args.img_root, p) for p in table[0]]
    labels = table[1]
    ds = tf.data.Dataset.from_tensor_slices((paths, labels))
    if shard:
        ds = ds.shard(hvd.size(), hvd.rank())
    if training:
        ds = ds.shuffle(20000, reshuffle_each_iteration=True)

    def load(path, y):
        img = tf.io.decode_jpeg(tf.io.read_file(path), channels=1)
        img = tf.image.resize(img, (args.size, args.size)) / 255.0
        if training:
            img = tf.image.random_flip_left_right(img)
        return tf.image.grayscale_to_rgb(img), y

    ds = ds.map(load, num_parallel_calls=tf.data.AUTOTUNE).batch(args.batch_size)
    return (ds.repeat() if training else ds).prefetch(tf.data.AUTOTUNE)


def build_model(size, n_out):
    inp = keras.Input((size, size, 3))
    x = layers.Conv2D(32, 7, strides=2, padding="same", activation="relu")(inp)
    for f in (64, 128, 256):
        y = layers.BatchNormalization()(x)
        y = layers.Conv2D(f // 2, 3, padding="same", activation="relu")(y)
        x = layers.Concatenate()([x, y])
        x = layers.AveragePooling2D(2)(layers.Conv2D(f, 1, activation="relu")(x))
    x = layers.GlobalAveragePooling2D()(x)
    return keras.Model(inp, layers.Dense(n_out, activation="sigmoid")(x))


def make_callbacks(args, scaled_lr, steps_per_epoch):
    cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
           hvd.callbacks.MetricAverageCallback(),
           hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=args.warmup_epochs,
                                                    steps_per_epoch=steps_per_epoch, verbose=0)]
    if hvd.rank() == 0:
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, "epoch{epoch:02d}.weights.h5"),
                                                   save_weights_only=True))
    return cbs


def main():
    args = parse_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)

    train_df = read_csv(args.csv, frontal_only=True)
    val_df = read_csv(args.val_csv)
    train_ds = dataset(train_df, args, training=True)
    val_ds = dataset(val_df, args, training=False)
    steps_per_epoch = len(train_df[0]) // (args.batch_size * hvd.size())

    scaled_lr = args.lr * hvd.size()
    model = build_model(args.size, len(FINDINGS))
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
    model.compile(optimizer=opt, loss="binary_crossentropy", metrics=[keras.metrics.BinaryAccuracy(name="acc")])

    model.fit(train_ds, epochs=args.epochs, steps_per_epoch=steps_per_epoch, validation_data=val_ds,
              callbacks=make_callbacks(args, scaled_lr, steps_per_epoch), verbose=1 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        # final numbers for the paper table: whole validation set, one process
        full_val = dataset(val_df, args, training=False, shard=False)
        loss, acc = model.evaluate(full_val, verbose=0)
        print(f"valid (all {len(val_df[0])} studies): loss {loss:.4f} binary acc {acc:.4f}")
        model.save(os.path.join(args.out, "final.keras"))


if __name__ == "__main__":
    main()
