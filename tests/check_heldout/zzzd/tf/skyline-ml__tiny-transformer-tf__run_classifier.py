# coding=utf-8
"""Fine-tune a tiny transformer encoder for sentence classification (Keras 3).

Distributed options:
  --distributed horovod   (default; launch with horovodrun / mpirun)
  --distributed mirrored  (one machine, tf.distribute)
  --distributed none
"""
import argparse
import contextlib
import os

import numpy as np
import tensorflow as tf
import keras
from keras import layers


def parse_args():
    parser = argparse.ArgumentParser(description="tiny transformer classifier")
    parser.add_argument("--distributed", default="horovod", choices=["horovod", "mirrored", "none"])
    parser.add_argument("--train_file", default=None)
    parser.add_argument("--max_seq_length", type=int, default=128)
    parser.add_argument("--vocab_size", type=int, default=8000)
    parser.add_argument("--num_labels", type=int, default=2)
    parser.add_argument("--train_batch_size", type=int, default=32)
    parser.add_argument("--learning_rate", type=float, default=5e-5)
    parser.add_argument("--num_train_epochs", type=int, default=3)
    parser.add_argument("--warmup_steps", type=int, default=1)
    parser.add_argument("--output_dir", default="output")
    return parser.parse_args()


class TransformerBlock(layers.Layer):
    def __init__(self, dim, heads, ff, rate=0.1, **kw):
        super().__init__(**kw)
        self.att = layers.MultiHeadAttention(heads, dim // heads)
        self.ffn = keras.Sequential([layers.Dense(ff, activation="gelu"), layers.Dense(dim)])
        self.ln1, self.ln2 = layers.LayerNormalization(epsilon=1e-6), layers.LayerNormalization(epsilon=1e-6)
        self.drop = layers.Dropout(rate)

    def call(self, x, training=False):
        x = self.ln1(x + self.drop(self.att(x, x), training=training))
        return self.ln2(x + self.drop(self.ffn(x), training=training))


def build_model(args, dim=128, heads=4, ff=256, depth=2):
    ids = keras.Input((args.max_seq_length,), dtype="int32")
    x = layers.Embedding(args.vocab_size, dim)(ids)
    pos = layers.Embedding(args.max_seq_length, dim)(keras.ops.arange(args.max_seq_length))
    x = x + pos
    for _ in range(depth):
        x = TransformerBlock(dim, heads, ff)(x)
    x = layers.GlobalAveragePooling1D()(x)
    return keras.Model(ids, layers.Dense(args.num_labels)(x))


def load_examples(args):
    if args.train_file:
        blob = np.load(args.train_file)
        return blob["input_ids"], blob["labels"]
    rng = np.random.default_rng(0)
    return (rng.integers(1, args.vocab_size, (2000, args.max_seq_length)).astype("int32"),
            rng.integers(0, args.num_labels, 2000).astype("int32"))


def main():
    args = parse_args()
    hvd = None
    scope = contextlib.nullcontext
    world_size, rank = 1, 0
    if args.distributed == "horovod":
        import horovod.tensorflow.keras as hvd
        hvd.init()
        world_size, rank = hvd.size(), hvd.rank()
        gpus = tf.config.experimental.list_physical_devices("GPU")
        for gpu in gpus:
            tf.config.experimental.set_memory_growth(gpu, True)
        if gpus:
            tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    elif args.distributed == "mirrored":
        strategy = tf.distribute.MirroredStrategy()
        scope, world_size = strategy.scope, strategy.num_replicas_in_sync

    input_ids, labels = load_examples(args)
    n_dev = len(labels) // 10
    train_ds = (tf.data.Dataset.from_tensor_slices((input_ids[n_dev:], labels[n_dev:]))
                .shuffle(10000).batch(args.train_batch_size))
    dev_ds = tf.data.Dataset.from_tensor_slices((input_ids[:n_dev], labels[:n_dev])).batch(64)

    lr = args.learning_rate * world_size
    with scope():
        model = build_model(args)
        optimizer = keras.optimizers.AdamW(learning_rate=lr, weight_decay=0.01)
        if hvd is not None:
            optimizer = hvd.DistributedOptimizer(optimizer)
        model.compile(optimizer=optimizer,
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])

    callbacks = []
    if hvd is not None:
        callbacks += [
            hvd.callbacks.BroadcastGlobalVariablesCallback(0),
            hvd.callbacks.MetricAverageCallback(),
            hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=args.warmup_epochs),
        ]
    if rank == 0:
        os.makedirs(args.output_dir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.output_dir, "model.weights.h5"),
                                                         save_weights_only=True))

    model.fit(train_ds, validation_data=dev_ds, epochs=args.num_train_epochs, callbacks=callbacks,
              verbose=1 if rank == 0 else 0)
    if rank == 0:
        print(model.evaluate(dev_ds, verbose=0, return_dict=True))


if __name__ == "__main__":
    main()
