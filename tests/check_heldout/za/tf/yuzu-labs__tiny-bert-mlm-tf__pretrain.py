#!/usr/bin/env python
"""Masked-LM pre-training of a 4-layer BERT on pre-tokenized shards (int32 ids, 128 tokens per row).

Launch:  horovodrun -np 8 -H gpu01:4,gpu02:4 python pretrain.py --shards '/lustre/mlm/shard-*.npy'
"""
import argparse
import glob
import math
import os

import horovod.tensorflow as hvd
import keras
import numpy as np
import tensorflow as tf

p = argparse.ArgumentParser()
p.add_argument("--shards", default="/lustre/mlm/shard-*.npy")
p.add_argument("--vocab-size", type=int, default=30522)
p.add_argument("--seq-len", type=int, default=128)
p.add_argument("--hidden", type=int, default=256)
p.add_argument("--layers", type=int, default=4)
p.add_argument("--heads", type=int, default=4)
p.add_argument("--batch-size", type=int, default=64)
p.add_argument("--peak-lr", type=float, default=5e-4)
p.add_argument("--warmup-steps", type=int, default=2000)
p.add_argument("--total-steps", type=int, default=100000)
p.add_argument("--mask-prob", type=float, default=0.15)
p.add_argument("--ckpt-dir", default="checkpoints/tiny-bert")
p.add_argument("--log-every", type=int, default=100)
args = p.parse_args()

MASK_ID, PAD_ID = 103, 0

hvd.init()
for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)

files = sorted(glob.glob(args.shards))
rows = np.concatenate([np.load(f) for f in files])
ds = tf.data.Dataset.from_tensor_slices(rows).shard(hvd.size(), hvd.rank())
ds = ds.shuffle(50_000).repeat().batch(args.batch_size, drop_remainder=True)


def mask_tokens(ids):
    real = tf.not_equal(ids, PAD_ID)
    pick = tf.logical_and(tf.random.uniform(tf.shape(ids)) < args.mask_prob, real)
    inputs = tf.where(pick, tf.fill(tf.shape(ids), MASK_ID), ids)
    return inputs, ids, tf.cast(pick, tf.float32)


ds = ds.map(mask_tokens, num_parallel_calls=tf.data.AUTOTUNE).prefetch(tf.data.AUTOTUNE)


class TokenPositionEmbedding(keras.layers.Layer):
    def __init__(self, vocab, length, dim, **kw):
        super().__init__(**kw)
        self.tok = keras.layers.Embedding(vocab, dim)
        self.pos = keras.layers.Embedding(length, dim)

    def call(self, ids):
        return self.tok(ids) + self.pos(keras.ops.arange(keras.ops.shape(ids)[1]))


def encoder_block(x):
    # rows are packed to seq_len by the tokenizer job, so there is no padding to mask out
    a = keras.layers.MultiHeadAttention(args.heads, args.hidden // args.heads)(x, x)
    x = keras.layers.LayerNormalization(epsilon=1e-12)(x + a)
    f = keras.layers.Dense(4 * args.hidden, activation="gelu")(x)
    return keras.layers.LayerNormalization(epsilon=1e-12)(x + keras.layers.Dense(args.hidden)(f))


ids_in = keras.Input((args.seq_len,), dtype="int32")
h = TokenPositionEmbedding(args.vocab_size, args.seq_len, args.hidden)(ids_in)
for _ in range(args.layers):
    h = encoder_block(h)
logits_out = keras.layers.Dense(args.vocab_size)(h)
model = keras.Model(ids_in, logits_out, name="tiny_bert_mlm")


class WarmupCosine(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak, warmup, total):
        self.peak, self.warmup, self.total = peak, warmup, total

    def __call__(self, step):
        step = tf.cast(step, tf.float32)
        warm = self.peak * step / self.warmup
        prog = tf.clip_by_value((step - self.warmup) / (self.total - self.warmup), 0.0, 1.0)
        return tf.where(step < self.warmup, warm, 0.5 * self.peak * (1 + tf.cos(math.pi * prog)))


lr = WarmupCosine(args.peak_lr * hvd.local_size(), args.warmup_steps, args.total_steps)
optimizer = keras.optimizers.AdamW(learning_rate=lr, weight_decay=0.01, clipnorm=1.0)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")


@tf.function
def train_step(inputs, labels, weights, first_batch):
    with tf.GradientTape() as tape:
        logits = model(inputs, training=True)
        per_tok = loss_fn(labels, logits)
        loss = tf.reduce_sum(per_tok * weights) / tf.maximum(tf.reduce_sum(weights), 1.0)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables, root_rank=0)
    hit = tf.cast(tf.equal(tf.argmax(logits, -1, output_type=tf.int32), labels), tf.float32)
    correct = tf.reduce_sum(hit * weights)
    return loss, correct, tf.reduce_sum(weights)


ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=5)

stats = np.zeros(3)
for step, (inputs, labels, weights) in enumerate(ds.take(args.total_steps)):
    loss, correct, n_masked = train_step(inputs, labels, weights, step == 0)
    stats += [float(loss), float(correct), float(n_masked)]
    if (step + 1) % args.log_every == 0:
        tot = hvd.allreduce(tf.constant(stats[1:], tf.float64), op=hvd.Sum).numpy()
        mean_loss = hvd.allreduce(tf.constant(stats[0] / args.log_every), op=hvd.Average).numpy()
        if hvd.rank() == 0:
            print(f"step {step + 1} mlm_loss {mean_loss:.4f} mlm_acc {tot[0] / tot[1]:.4f} "
                  f"lr {float(lr(step)):.2e}", flush=True)
        stats[:] = 0
    if (step + 1) % 5000 == 0 and hvd.rank() == 0:
        manager.save(checkpoint_number=step + 1)
