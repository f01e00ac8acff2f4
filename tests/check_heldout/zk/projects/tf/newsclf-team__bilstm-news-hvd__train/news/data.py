import csv

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd


def _read(path):
    xs, ys = [], []
    with open(path, encoding="utf-8") as f:
        for label, title, desc in csv.reader(f):
            xs.append(f"{title} {desc}")
            ys.append(int(label) - 1)
    return np.array(xs), np.array(ys, dtype="int64")


def load_agnews(train_csv, test_csv):
    return _read(train_csv), _read(test_csv)


def build_pipeline(train_x, train_y, test_x, test_y, cfg):
    vec = keras.layers.TextVectorization(max_tokens=cfg["vocab_size"], output_sequence_length=cfg["seq_len"])
    vec.adapt(train_x[:100000])

    train = tf.data.Dataset.from_tensor_slices((train_x, train_y))
    train = (train.shuffle(len(train_x))
                  .shard(hvd.size(), hvd.rank())
                  .repeat()
                  .batch(cfg["batch_size"])
                  .map(lambda t, y: (vec(t), y), num_parallel_calls=tf.data.AUTOTUNE)
                  .prefetch(tf.data.AUTOTUNE))
    test = (tf.data.Dataset.from_tensor_slices((test_x, test_y))
                 .shard(hvd.size(), hvd.rank())
                 .repeat()
                 .batch(cfg["batch_size"])
                 .map(lambda t, y: (vec(t), y)))
    return train, test, vec
