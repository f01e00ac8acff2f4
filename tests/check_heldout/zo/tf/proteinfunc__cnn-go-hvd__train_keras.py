# -*- coding: utf-8 -*-
"""
DeepGO-style protein function prediction: one-hot sequence -> 1D CNN -> multi-label GO terms.
Distributed with Horovod (tf.keras API).

    horovodrun -np 4 python train_keras.py --train data/go_mf_train.tsv --valid data/go_mf_valid.tsv
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

AA = "ACDEFGHIKLMNPQRSTVWY"
AA_INDEX = {a: i for i, a in enumerate(AA)}


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="data/go_mf_train.tsv")
    ap.add_argument("--valid", default="data/go_mf_valid.tsv")
    ap.add_argument("--max-len", type=int, default=1000)
    ap.add_argument("--min-count", type=int, default=50, help="keep GO terms with at least this many proteins")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--filters", type=int, default=512)
    ap.add_argument("--checkpoint-dir", default="checkpoints")
    return ap.parse_args()


def read_tsv(path):
    """protein_id <tab> sequence <tab> GO:0003674;GO:0005488;..."""
    ids, seqs, terms = [], [], []
    with open(path) as f:
        for line in f:
            pid, seq, gos = line.rstrip("\n").split("\t")
            ids.append(pid)
            seqs.append(seq)
            terms.append(gos.split(";") if gos else [])
    return ids, seqs, terms


def one_hot(seqs, max_len):
    x = np.zeros((len(seqs), max_len, len(AA)), np.float32)
    for i, s in enumerate(seqs):
        for j, a in enumerate(s[:max_len]):
            k = AA_INDEX.get(a)
            if k is not None:
                x[i, j, k] = 1.0
    return x


def multi_hot(terms, vocab):
    idx = {t: i for i, t in enumerate(vocab)}
    y = np.zeros((len(terms), len(vocab)), np.float32)
    for i, ts in enumerate(terms):
        for t in ts:
            if t in idx:
                y[i, idx[t]] = 1.0
    return y


def build_model(max_len, n_terms, filters):
    inp = keras.Input((max_len, len(AA)))
    branches = []
    for k in (8, 16, 24, 32):
        h = keras.layers.Conv1D(filters // 4, k, padding="valid", activation="relu")(inp)
        branches.append(keras.layers.GlobalMaxPooling1D()(h))
    x = keras.layers.Concatenate()(branches)
    x = keras.layers.Dropout(0.3)(x)
    out = keras.layers.Dense(n_terms, activation="sigmoid")(x)
    return keras.Model(inp, out, name="cnn_go")


def main():
    args = parse_args()
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    _, tr_seqs, tr_terms = read_tsv(args.train)
    _, va_seqs, va_terms = read_tsv(args.valid)
    counts = {}
    for ts in tr_terms:
        for t in ts:
            counts[t] = counts.get(t, 0) + 1
    vocab = sorted(t for t, c in counts.items() if c >= args.min_count)
    x_train, y_train = one_hot(tr_seqs, args.max_len), multi_hot(tr_terms, vocab)
    x_valid, y_valid = one_hot(va_seqs, args.max_len), multi_hot(va_terms, vocab)
    if hvd.rank() == 0:
        print(f"{len(x_train)} train / {len(x_valid)} valid proteins, {len(vocab)} GO terms")

    model = build_model(args.max_len, len(vocab), args.filters)
    scaled_lr = args.lr * hvd.size()
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
    model.compile(optimizer=opt, loss="binary_crossentropy",
                  metrics=[keras.metrics.AUC(multi_label=True, name="auc"), keras.metrics.Recall(name="recall")])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=3, verbose=1),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.3, patience=3, min_lr=1e-6),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.checkpoint_dir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(
            os.path.join(args.checkpoint_dir, "cnn_go_best.h5"), monitor="val_loss",
            save_best_only=True, save_weights_only=True, verbose=1))

    model.fit(x_train, y_train, batch_size=args.batch_size, epochs=args.epochs,
              validation_data=(x_valid, y_valid), callbacks=callbacks,
              verbose=1 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        model.save(os.path.join(args.checkpoint_dir, "cnn_go_final.keras"))


if __name__ == "__main__":
    main()
