#!/usr/bin/env python
"""Multi-label chest X-ray classification (CheXpert, 5 competition labels) with DenseNet-121.

Runs on Great Lakes GPU nodes:
    srun -n 8 python train.py --csv /scratch/chexpert/train.csv --epochs 5
"""
import argparse
import os

import pandas as pd
import tensorflow as tf
from tensorflow import keras
import horovod.tensorflow as hvd

TARGETS = ["Atelectasis", "Cardiomegaly", "Consolidation", "Edema", "Pleural Effusion"]
IMG = 320


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--csv", default="/scratch/chexpert/train.csv")
    p.add_argument("--valid-csv", default="/scratch/chexpert/valid.csv")
    p.add_argument("--root", default="/scratch/chexpert")
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--out", default="checkpoints/cxr_densenet")
    return p.parse_args()


def read_table(csv, root):
    df = pd.read_csv(csv)
    df = df[df["Frontal/Lateral"] == "Frontal"]
    # U-Ones policy: uncertain (-1) findings count as positive, blanks as negative
    labels = df[TARGETS].fillna(0).replace(-1, 1).astype("float32").values
    paths = [os.path.join(root, p.split("/", 1)[1]) for p in df["Path"]]
    return paths, labels


def load_image(path, label, training):
    img = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
    img = tf.image.resize(img, (IMG, IMG))
    if training:
        img = tf.image.random_flip_left_right(img)
        img = tf.image.random_brightness(img, 0.1)
    return keras.applications.densenet.preprocess_input(img), label


def make_dataset(paths, labels, batch_size, training):
    ds = tf.data.Dataset.from_tensor_slices((paths, labels))
    ds = ds.shard(hvd.size(), hvd.rank())
    if training:
        ds = ds.shuffle(4096).repeat()
    ds = ds.map(lambda p, y: load_image(p, y, training), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)


def build_model():
    base = keras.applications.DenseNet121(include_top=False, weights="imagenet",
                                          input_shape=(IMG, IMG, 3), pooling="avg")
    out = keras.layers.Dense(len(TARGETS), activation="sigmoid")(base.output)
    return keras.Model(base.input, out)


def main():
    args = get_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_paths, train_labels = read_table(args.csv, args.root)
    val_paths, val_labels = read_table(args.valid_csv, args.root)
    train_ds = make_dataset(train_paths, train_labels, args.batch_size, training=True)
    val_ds = make_dataset(val_paths, val_labels, args.batch_size, training=False)

    model = build_model()
    opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
    opt = hvd.DistributedOptimizer(opt)
    model.compile(optimizer=opt, loss="binary_crossentropy",
                  metrics=[keras.metrics.AUC(multi_label=True, num_labels=len(TARGETS), name="auc")])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(
            os.path.join(args.out, "epoch{epoch:02d}-auc{val_auc:.3f}.keras"), monitor="val_auc"))

    steps_per_epoch = len(train_paths) // args.batch_size
    model.fit(train_ds, epochs=args.epochs, steps_per_epoch=steps_per_epoch,
              validation_data=val_ds, callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
