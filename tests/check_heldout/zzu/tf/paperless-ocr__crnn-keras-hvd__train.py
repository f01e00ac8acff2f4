#!/usr/bin/env python3
# Receipt / invoice line OCR: CRNN + CTC (Keras 3), data-parallel with Horovod.
#
# Data layout:
#   data/lines/*.png
#   data/labels.txt         "<file name> <transcription>"
#   data/splits/train.txt   one file name per line
#   data/splits/val.txt
import os
import argparse

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow.keras as hvd

CONFIG = {
    "img_width": 200,
    "img_height": 50,
    "max_label_len": 40,
    "downsample": 4,
}


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data-dir", default="data")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--warmup", type=int, default=3, help="warmup epochs")
    p.add_argument("--patience", type=int, default=8)
    p.add_argument("--ckpt-dir", default="checkpoints")
    return p.parse_args()


def load_split(data_dir, split, labels):
    with open(os.path.join(data_dir, "splits", split + ".txt")) as f:
        names = [l.strip() for l in f if l.strip()]
    names = [n for n in names if n in labels]
    return [os.path.join(data_dir, "lines", n) for n in names], [labels[n] for n in names]


class CTCLayer(layers.Layer):
    def call(self, y_true, y_pred):
        batch = tf.shape(y_pred)[0]
        input_len = tf.fill([batch], tf.shape(y_pred)[1])
        label_len = tf.reduce_sum(tf.cast(tf.not_equal(y_true, 0), tf.int32), axis=1)
        loss = keras.ops.ctc_loss(y_true, y_pred, label_len, input_len, mask_index=0)
        self.add_loss(keras.ops.mean(loss))
        return y_pred


def build_model(num_chars):
    w, h = CONFIG["img_width"], CONFIG["img_height"]
    image = keras.Input(shape=(w, h, 1), name="image")
    label = keras.Input(shape=(None,), name="label", dtype="int32")
    x = layers.Conv2D(32, 3, activation="relu", padding="same")(image)
    x = layers.MaxPooling2D(2)(x)
    x = layers.Conv2D(64, 3, activation="relu", padding="same")(x)
    x = layers.MaxPooling2D(2)(x)
    x = layers.Reshape((w // 4, (h // 4) * 64))(x)
    x = layers.Dense(64, activation="relu")(x)
    x = layers.Dropout(0.2)(x)
    x = layers.Bidirectional(layers.LSTM(128, return_sequences=True, dropout=0.25))(x)
    x = layers.Bidirectional(layers.LSTM(64, return_sequences=True, dropout=0.25))(x)
    logits = layers.Dense(num_chars + 1, name="logits")(x)
    out = CTCLayer(name="ctc")(label, logits)
    return keras.Model([image, label], out, name="receipt_crnn")


def make_ds(paths, texts, char_to_num, batch, training):
    labels = char_to_num(tf.strings.unicode_split(texts, "UTF-8")).to_tensor(0)
    ds = tf.data.Dataset.from_tensor_slices((paths, labels))
    ds = ds.shard(hvd.size(), hvd.rank())

    def load(path, label):
        img = tf.io.decode_png(tf.io.read_file(path), channels=1)
        img = tf.image.convert_image_dtype(img, tf.float32)
        img = tf.image.resize(img, [CONFIG["img_height"], CONFIG["img_width"]])
        img = tf.transpose(img, perm=[1, 0, 2])
        return {"image": img, "label": label}

    if training:
        ds = ds.shuffle(2048).repeat()
    return ds.map(load, num_parallel_calls=tf.data.AUTOTUNE).batch(batch).prefetch(tf.data.AUTOTUNE)


def main():
    args = parse_args()
    hvd.init()

    gpus = tf.config.experimental.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    labels = {}
    with open(os.path.join(args.data_dir, "labels.txt"), encoding="utf-8") as f:
        for line in f:
            name, _, text = line.rstrip("\n").partition(" ")
            labels[name] = text[:CONFIG["max_label_len"]]
    train_paths, train_texts = load_split(args.data_dir, "train", labels)
    val_paths, val_texts = load_split(args.data_dir, "val", labels)

    vocab = sorted(set("".join(labels.values())))
    char_to_num = layers.StringLookup(vocabulary=vocab, mask_token=None, num_oov_indices=0)
    # StringLookup without OOV maps vocab to 0..n-1; shift so that 0 stays the CTC blank
    shifted = lambda chars: char_to_num(chars) + 1

    train_ds = make_ds(train_paths, train_texts, shifted, args.batch_size, training=True)
    val_ds = make_ds(val_paths, val_texts, shifted, args.batch_size, training=False)

    model = build_model(len(vocab))
    opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
    model.compile(optimizer=hvd.DistributedOptimizer(opt))

    os.makedirs(args.ckpt_dir, exist_ok=True)
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=args.lr * hvd.size(),
                                                 warmup_epochs=args.warmup_epochs, verbose=1),
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=args.patience, restore_best_weights=True),
        keras.callbacks.ModelCheckpoint(os.path.join(args.ckpt_dir, "best.weights.h5"),
                                        monitor="val_loss", save_best_only=True, save_weights_only=True),
    ]
    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.TensorBoard(log_dir="logs"))

    steps_per_epoch = len(train_paths) // (args.batch_size * hvd.size())
    model.fit(train_ds, validation_data=val_ds, epochs=args.epochs, steps_per_epoch=steps_per_epoch,
              callbacks=callbacks,
              verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
