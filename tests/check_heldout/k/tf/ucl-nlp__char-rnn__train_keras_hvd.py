#!/usr/bin/env python
# Character-level LSTM language model (Keras) trained data-parallel with Horovod.
#   horovodrun -np 4 python train_keras_hvd.py --text data/shakespeare.txt
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd


def build_vocab(text):
    chars = sorted(set(text))
    return {c: i for i, c in enumerate(chars)}, np.array(chars)


def make_dataset(ids, seq_len, batch_size):
    ds = tf.data.Dataset.from_tensor_slices(ids)
    ds = ds.batch(seq_len + 1, drop_remainder=True)
    ds = ds.map(lambda chunk: (chunk[:-1], chunk[1:]))
    return ds.shuffle(10000).batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)


def char_rnn(vocab_size, embed=256, units=1024, layers=2, dropout=0.2):
    model = keras.Sequential([keras.Input((None,)), keras.layers.Embedding(vocab_size, embed)])
    for _ in range(layers):
        model.add(keras.layers.LSTM(units, return_sequences=True, dropout=dropout))
    model.add(keras.layers.Dense(vocab_size))
    return model


def sample(model, idx2char, char2idx, start="ROMEO:", n=300, temperature=0.8):
    ids = [char2idx[c] for c in start]
    for _ in range(n):
        logits = model(np.array([ids[-200:]]), training=False)[0, -1] / temperature
        ids.append(int(tf.random.categorical(logits[None], 1)[0, 0]))
    return "".join(idx2char[ids])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--text", default="data/shakespeare.txt")
    ap.add_argument("--seq-len", type=int, default=100)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--decay", type=float, default=0.97)
    ap.add_argument("--out", default="checkpoints/char_rnn")
    args = ap.parse_args()

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    with open(args.text, encoding="utf-8") as f:
        text = f.read()
    char2idx, idx2char = build_vocab(text)
    ids = np.array([char2idx[c] for c in text], dtype=np.int32)
    split = int(0.95 * len(ids))
    train_ds = make_dataset(ids[:split], args.seq_len, args.batch_size)
    dev_ds = make_dataset(ids[split:], args.seq_len, args.batch_size)

    model = char_rnn(len(idx2char))
    opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
    model.compile(optimizer=hvd.DistributedOptimizer(opt),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))

    def exp_decay(epoch):
        return args.lr * args.decay ** epoch

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        keras.callbacks.LearningRateScheduler(exp_decay),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, "char_rnn.keras"),
                                                         monitor="val_loss", save_best_only=True))

    model.fit(train_ds, epochs=args.epochs, validation_data=dev_ds, callbacks=callbacks,
              verbose=1 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        print(sample(model, idx2char, char2idx))


if __name__ == "__main__":
    main()
