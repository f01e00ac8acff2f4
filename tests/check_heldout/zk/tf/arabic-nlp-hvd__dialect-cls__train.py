"""Arabic dialect identification (MADAR-26 style) with a char-CNN, tf.keras + Horovod.

horovodrun -np 4 python train.py --data-dir data/madar --epochs 20
"""
import argparse
import csv
import os

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow.keras as hvd


def get_args():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", default="data/madar")
    parser.add_argument("--max-chars", type=int, default=160)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--patience", type=int, default=3)
    parser.add_argument("--out", default="checkpoints/dialect_cnn.keras")
    return parser.parse_args()


def read_split(path):
    texts, dialects = [], []
    with open(path, encoding="utf-8") as f:
        for text, dialect in csv.reader(f, delimiter="\t"):
            texts.append(text)
            dialects.append(dialect)
    return texts, dialects


def char_cnn(n_chars, n_classes, max_chars, emb=64):
    inp = keras.Input((max_chars,), dtype="int32")
    x = layers.Embedding(n_chars, emb)(inp)
    convs = [layers.GlobalMaxPooling1D()(layers.Conv1D(128, k, activation="relu")(x)) for k in (2, 3, 4, 5)]
    x = layers.Dropout(0.4)(layers.Concatenate()(convs))
    x = layers.Dense(256, activation="relu")(x)
    return keras.Model(inp, layers.Dense(n_classes, activation="softmax")(x))


def main():
    args = get_args()
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    tr_text, tr_lab = read_split(os.path.join(args.data_dir, "train.tsv"))
    dv_text, dv_lab = read_split(os.path.join(args.data_dir, "dev.tsv"))
    classes = sorted(set(tr_lab))
    vec = layers.TextVectorization(split="character", output_mode="int",
                                   output_sequence_length=args.max_chars, standardize=None)
    vec.adapt(tr_text)
    to_idx = {c: i for i, c in enumerate(classes)}

    def make_ds(texts, labels, train):
        x = vec(np.array(texts)).numpy()
        y = np.array([to_idx[l] for l in labels])
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank())
        if train:
            ds = ds.shuffle(50000, seed=7)
        return ds.batch(args.batch_size).prefetch(tf.data.AUTOTUNE)

    train_ds = make_ds(tr_text, tr_lab, True)
    dev_ds = make_ds(dv_text, dv_lab, False)

    model = char_cnn(vec.vocabulary_size(), len(classes), args.max_chars)
    opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
    dist_opt = hvd.DistributedOptimizer(opt)
    model.compile(optimizer=opt, loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])

    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        keras.callbacks.EarlyStopping(monitor="val_accuracy", patience=args.patience,
                                      restore_best_weights=True),
        keras.callbacks.ModelCheckpoint(args.out, monitor="val_accuracy", save_best_only=True),
    ]
    history = model.fit(train_ds, validation_data=dev_ds, epochs=args.epochs,
                        callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        best = max(history.history["val_accuracy"])
        print(f"best dev accuracy: {best:.4f} over {len(classes)} dialects")


if __name__ == "__main__":
    main()
