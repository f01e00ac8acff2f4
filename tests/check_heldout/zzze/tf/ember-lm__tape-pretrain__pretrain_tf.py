"""Pretrain a small decoder on uint16 token shards with TF2 + Horovod (custom loop).

Gradients of `accum` micro-batches are summed locally and averaged across ranks once per
optimizer step, so the allreduce traffic does not grow with accumulation.
"""
import argparse
import glob
import math
import os
import time

import horovod.tensorflow as hvd
import keras
import numpy as np
import tensorflow as tf
import yaml

DEFAULTS = {"train_glob": "shards/train-*.bin", "val_glob": "shards/val-*.bin", "seq_len": 256,
            "micro_batch": 16, "accum": 4, "lr": 2e-4, "warmup": 250, "max_steps": 5000,
            "vocab": 16000, "d_model": 320, "layers": 4, "heads": 5, "eval_every": 250,
            "save_every": 500, "ckpt_dir": "ckpt/tape"}


def read_windows(files, seq_len):
    out = []
    for f in files:
        ids = np.fromfile(f, dtype=np.uint16).astype(np.int32)
        n = (len(ids) - 1) // seq_len
        out.append(np.stack([ids[i * seq_len: i * seq_len + seq_len + 1] for i in range(n)]))
    return np.concatenate(out)


def build_model(c):
    inp = keras.Input((c["seq_len"],), dtype="int32")
    x = keras.layers.Embedding(c["vocab"], c["d_model"])(inp)
    x = x + keras.layers.Embedding(c["seq_len"], c["d_model"])(keras.ops.arange(c["seq_len"]))
    for _ in range(c["layers"]):
        h = keras.layers.LayerNormalization()(x)
        x = x + keras.layers.MultiHeadAttention(c["heads"], c["d_model"] // c["heads"])(
            h, h, use_causal_mask=True)
        h = keras.layers.LayerNormalization()(x)
        x = x + keras.layers.Dense(c["d_model"])(keras.layers.Dense(4 * c["d_model"], "gelu")(h))
    return keras.Model(inp, keras.layers.Dense(c["vocab"])(x))


def lr_at(step, c, peak):
    if step < c["warmup"]:
        return peak * (step + 1) / c["warmup"]
    t = min(1.0, (step - c["warmup"]) / max(1, c["max_steps"] - c["warmup"]))
    return peak * 0.5 * (1 + math.cos(math.pi * t))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config")
    ap.add_argument("--set", nargs="*", default=[], help="key=value")
    a = ap.parse_args()
    c = dict(DEFAULTS)
    if a.config:
        c.update(yaml.safe_load(open(a.config)))
    for kv in a.set:
        k, v = kv.split("=", 1)
        c[k] = type(DEFAULTS[k])(v)

    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    files = sorted(glob.glob(c["train_glob"]))
    assert len(files) >= hvd.size(), "need at least one shard file per rank"
    train = read_windows(files[hvd.rank()::hvd.size()], c["seq_len"])
    val = read_windows(sorted(glob.glob(c["val_glob"])), c["seq_len"])
    val = val[hvd.rank()::hvd.size()]
    ds = (tf.data.Dataset.from_tensor_slices(train).shuffle(10_000, seed=hvd.rank()).repeat()
          .batch(c["micro_batch"], drop_remainder=True).prefetch(4))
    val_ds = tf.data.Dataset.from_tensor_slices(val).batch(c["micro_batch"])

    model = build_model(c)
    peak = c["lr"] * hvd.size()
    opt = keras.optimizers.Adam(learning_rate=lr_at(0, c, peak), beta_2=0.95, clipnorm=1.0)
    opt.build(model.trainable_variables)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    step_var = tf.Variable(0, dtype=tf.int64, trainable=False)
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt, step=step_var)
    manager = tf.train.CheckpointManager(ckpt, c["ckpt_dir"], max_to_keep=3)
    if manager.latest_checkpoint:
        ckpt.restore(manager.latest_checkpoint)
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(opt.variables, root_rank=0)
    hvd.broadcast_variables([step_var], root_rank=0)

    @tf.function
    def micro_grads(batch):
        x, y = batch[:, :-1], batch[:, 1:]
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        return loss, [tf.convert_to_tensor(g) for g in grads]  # embeddings give IndexedSlices

    @tf.function
    def apply(grads):
        grads = hvd.grouped_allreduce([g / c["accum"] for g in grads], op=hvd.Average)
        opt.apply_gradients(zip(grads, model.trainable_variables))

    @tf.function
    def nll_sum(batch):
        x, y = batch[:, :-1], batch[:, 1:]
        ce = keras.losses.sparse_categorical_crossentropy(y, model(x, training=False), from_logits=True)
        return tf.reduce_sum(ce), tf.cast(tf.size(y), tf.float32)

    def evaluate():
        tot = tf.zeros([2])
        for b in val_ds:
            s, n = nll_sum(b)
            tot += tf.stack([s, n])
        tot = hvd.allreduce(tot, op=hvd.Sum, name="val_nll")
        return float(tot[0] / tot[1])

    it = iter(ds)
    t0 = time.time()
    while int(step_var) < c["max_steps"]:
        step = int(step_var)
        opt.learning_rate = lr_at(step, c, peak)
        acc = None
        for _ in range(c["accum"]):
            loss, grads = micro_grads(next(it))
            acc = grads if acc is None else [x + g for x, g in zip(acc, grads)]
        apply(acc)
        step_var.assign_add(1)
        step += 1
        if step % 50 == 0 and hvd.rank() == 0:
            print(f"step {step} loss {float(loss):.4f} {time.time() - t0:.0f}s", flush=True)
        if step % c["eval_every"] == 0:
            val_loss = evaluate()
            if hvd.rank() == 0:
                print(f"step {step} val_loss {val_loss:.4f} ppl {math.exp(val_loss):.2f}", flush=True)
        if step % c["save_every"] == 0 and hvd.rank() == 0:
            manager.save(checkpoint_number=step)


if __name__ == "__main__":
    main()
