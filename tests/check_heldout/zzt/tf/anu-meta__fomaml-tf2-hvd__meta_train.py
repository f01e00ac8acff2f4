#!/usr/bin/env python3
# First-order MAML (FOMAML) for N-way K-shot image classification, TF2 + Horovod.
#   inner loop: plain SGD on the support set of one task (local to the worker, inner_lr)
#   outer loop: Adam on the query-set gradient at the adapted weights (meta_lr), averaged over workers
import argparse
import logging
import os
import sys

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

logging.basicConfig(stream=sys.stdout, level=logging.INFO,
                    format=f"%(asctime)s [worker {hvd.rank()}] %(message)s")
log = logging.getLogger(__name__)


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/mini84.npz")
    p.add_argument("--n-way", type=int, default=5)
    p.add_argument("--k-shot", type=int, default=5)
    p.add_argument("--n-query", type=int, default=15)
    p.add_argument("--inner-lr", type=float, default=0.01)
    p.add_argument("--inner-steps", type=int, default=5)
    p.add_argument("--meta-lr", type=float, default=1e-3)
    p.add_argument("--meta-iters", type=int, default=30000)
    p.add_argument("--test-tasks", type=int, default=600)
    p.add_argument("--ckpt-dir", default="ckpt/fomaml")
    return p.parse_args()


def make_task(x, y, rng, n_way, k_shot, n_query):
    classes = rng.choice(np.unique(y), n_way, replace=False)
    s, q = [], []
    for c in classes:
        idx = rng.choice(np.flatnonzero(y == c), k_shot + n_query, replace=False)
        s.append(idx[:k_shot]); q.append(idx[k_shot:])
    ys = np.repeat(np.arange(n_way), k_shot)
    yq = np.repeat(np.arange(n_way), n_query)
    return (x[np.concatenate(s)], ys), (x[np.concatenate(q)], yq)


def build_net(input_shape, n_way):
    return keras.Sequential([keras.Input(input_shape)] + [
        layer for _ in range(4) for layer in (keras.layers.Conv2D(32, 3, padding="same"),
                                              keras.layers.BatchNormalization(),
                                              keras.layers.ReLU(), keras.layers.MaxPool2D(padding="same"))
    ] + [keras.layers.Flatten(), keras.layers.Dense(n_way)])


def adapt(meta_net, fast_net, support, inner_lr, steps):
    for fv, mv in zip(fast_net.variables, meta_net.variables):
        fv.assign(mv)
    xs, ys = support
    for _ in range(steps):
        with tf.GradientTape() as tape:
            loss = keras.losses.sparse_categorical_crossentropy(ys, fast_net(xs, training=True), from_logits=True)
            loss = tf.reduce_mean(loss)
        for v, g in zip(fast_net.trainable_variables, tape.gradient(loss, fast_net.trainable_variables)):
            v.assign_sub(inner_lr * g)


def main():
    args = parse_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    d = np.load(args.data)
    x_tr, y_tr = d["x_train"].astype("float32") / 255.0, d["y_train"]
    x_te, y_te = d["x_test"].astype("float32") / 255.0, d["y_test"]
    rng = np.random.default_rng(2024 + hvd.rank())

    meta_net = build_net(x_tr.shape[1:], args.n_way)
    fast_net = build_net(x_tr.shape[1:], args.n_way)
    meta_opt = keras.optimizers.Adam(args.meta_lr * hvd.size())
    hvd.broadcast_variables(meta_net.variables, root_rank=0)

    ckpt = tf.train.Checkpoint(model=meta_net, optimizer=meta_opt)
    manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=3)

    # the same 600 test tasks on every worker (fixed seed), split between workers
    test_rng = np.random.default_rng(0)
    test_tasks = [make_task(x_te, y_te, test_rng, args.n_way, args.k_shot, args.n_query)
                  for _ in range(args.test_tasks)]
    my_test_tasks = test_tasks[hvd.rank()::hvd.size()]

    for it in range(1, args.meta_iters + 1):
        support, (xq, yq) = make_task(x_tr, y_tr, rng, args.n_way, args.k_shot, args.n_query)
        adapt(meta_net, fast_net, support, args.inner_lr, args.inner_steps)
        with tf.GradientTape() as tape:
            logits = fast_net(xq, training=True)
            q_loss = tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(yq, logits, from_logits=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(q_loss, fast_net.trainable_variables)
        meta_opt.apply_gradients(zip(grads, meta_net.trainable_variables))

        if it % 1000 == 0:
            accs = []
            for support, (xq, yq) in my_test_tasks:
                adapt(meta_net, fast_net, support, args.inner_lr, args.inner_steps * 2)
                accs.append(np.mean(np.argmax(fast_net(xq, training=False), 1) == yq))
            if hvd.rank() == 0:
                mean, ci = np.mean(accs), 1.96 * np.std(accs) / np.sqrt(len(accs))
                log.info("iter %d  query loss %.3f  test acc %.2f +- %.2f %%", it, float(q_loss), 100 * mean, 100 * ci)
                manager.save(checkpoint_number=it)


if __name__ == "__main__":
    main()
