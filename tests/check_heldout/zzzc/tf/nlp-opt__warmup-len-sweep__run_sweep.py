"""Warm-up length vs final accuracy for a bag-of-embeddings text classifier (Keras 3 + Horovod).

Each invocation trains one configuration and appends a row to results/<tag>.tsv.
Typical sweep (see sweep.sh):  for w in 0 1 2 4; do horovodrun -np 8 python run_sweep.py --warmup-len $w; done
"""
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

VOCAB, SEQ, CLASSES = 20000, 128, 4


def get_parser():
    p = argparse.ArgumentParser()
    p.add_argument("--opt", default="adamw", choices=["adamw", "sgd", "lamb"])
    p.add_argument("--lr", type=float, default=1e-3, help="per-worker learning rate")
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--warmup-len", type=int, default=2, help="warm-up epochs")
    p.add_argument("--tag", default="sweep")
    p.add_argument("--ckpt", default="results/ckpt")
    return p


def fake_corpus(n, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, CLASSES, size=n)
    x = rng.integers(1, VOCAB, size=(n, SEQ))
    x[:, :8] = (y[:, None] * 37 + np.arange(8)) % VOCAB   # a learnable signal
    return x.astype("int32"), y.astype("int32")


def make_optimizer(name, lr):
    if name == "adamw":
        return keras.optimizers.AdamW(learning_rate=lr, weight_decay=0.01)
    if name == "lamb":
        return keras.optimizers.Lamb(learning_rate=lr)
    return keras.optimizers.SGD(learning_rate=lr, momentum=0.9)


def model_fn():
    inp = keras.Input((SEQ,), dtype="int32")
    h = keras.layers.Embedding(VOCAB, 128)(inp)
    h = keras.layers.GlobalAveragePooling1D()(h)
    h = keras.layers.Dense(128, activation="gelu")(h)
    return keras.Model(inp, keras.layers.Dense(CLASSES)(h))


def train(args):
    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)

    x_tr, y_tr = fake_corpus(40000, 0)
    x_va, y_va = fake_corpus(8000, 1)
    train_ds = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr)).shard(hvd.size(), hvd.rank())
                .shuffle(5000, seed=hvd.rank()).batch(args.batch, drop_remainder=True).repeat())
    val_ds = tf.data.Dataset.from_tensor_slices((x_va, y_va)).shard(hvd.size(), hvd.rank()).batch(500)
    steps = len(x_tr) // (args.batch * hvd.size())

    scaled_lr = args.lr * hvd.size()
    model = model_fn()
    model.compile(optimizer=hvd.DistributedOptimizer(make_optimizer(args.opt, scaled_lr)),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])

    cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
           hvd.callbacks.MetricAverageCallback(),
           hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=args.warmup_len,
                                                    steps_per_epoch=steps)]
    if hvd.rank() == 0:
        os.makedirs(args.ckpt, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(
            os.path.join(args.ckpt, f"{args.tag}_wu{args.warmup_len}.weights.h5"),
            save_weights_only=True, save_best_only=True, monitor="val_accuracy", mode="max"))

    t0 = time.time()
    hist = model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs, validation_data=val_ds,
                     callbacks=cbs, verbose=2 if hvd.rank() == 0 else 0)
    return hist.history, time.time() - t0


if __name__ == "__main__":
    args = get_parser().parse_args()
    history, secs = train(args)
    if hvd.rank() == 0:
        os.makedirs("results", exist_ok=True)
        path = os.path.join("results", args.tag + ".tsv")
        first = not os.path.exists(path)
        with open(path, "a") as f:
            if first:
                f.write("opt\tworkers\twarmup\tlr\tval_acc\tseconds\n")
            f.write(f"{args.opt}\t{hvd.size()}\t{args.warmup_len}\t{args.lr}\t"
                    f"{max(history['val_accuracy']):.4f}\t{secs:.0f}\n")
