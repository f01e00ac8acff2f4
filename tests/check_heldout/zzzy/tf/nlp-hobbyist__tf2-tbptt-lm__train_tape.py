# TF2 word-level GRU LM, truncated BPTT with the GRU state carried across windows.
# Horovod + GradientTape. python train_tape.py --train ptb.train.txt --valid ptb.valid.txt
import argparse
import math
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

hvd.init()
gpus = tf.config.experimental.list_physical_devices('GPU')
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

ap = argparse.ArgumentParser()
ap.add_argument('--train', default='ptb.train.txt')
ap.add_argument('--valid', default='ptb.valid.txt')
ap.add_argument('--batch', type=int, default=20)
ap.add_argument('--bptt', type=int, default=35)
ap.add_argument('--units', type=int, default=650)
ap.add_argument('--emb', type=int, default=650)
ap.add_argument('--lr', type=float, default=1.0)
ap.add_argument('--max-norm', type=float, default=5.0)
ap.add_argument('--epochs', type=int, default=39)
ap.add_argument('--ckpt', default='./tf_ckpts')
FLAGS = ap.parse_args()


def read_words(fn):
    with open(fn) as f:
        return f.read().replace('\n', ' <eos> ').split()


train_words = read_words(FLAGS.train)
vocab = sorted(set(train_words))
w2i = {w: i for i, w in enumerate(vocab)}
UNK = w2i.get('<unk>', 0)
train_ids = np.array([w2i[w] for w in train_words], dtype=np.int32)
valid_ids = np.array([w2i.get(w, UNK) for w in read_words(FLAGS.valid)], dtype=np.int32)


def worker_streams(ids, batch):
    # hvd.size()*batch streams over the whole corpus; this worker keeps rows rank, rank+size, ...
    n = hvd.size() * batch
    L = len(ids) // n
    all_rows = ids[:n * L].reshape(n, L)
    return all_rows[hvd.rank()::hvd.size()]


train_data = worker_streams(train_ids, FLAGS.batch)
valid_data = worker_streams(valid_ids, FLAGS.batch)


class LM(tf.keras.Model):
    def __init__(self, V):
        super().__init__()
        self.emb = tf.keras.layers.Embedding(V, FLAGS.emb)
        self.gru = tf.keras.layers.GRU(FLAGS.units, return_sequences=True, return_state=True)
        self.drop = tf.keras.layers.Dropout(0.5)
        self.out = tf.keras.layers.Dense(V)

    def call(self, x, state, training=False):
        h = self.drop(self.emb(x), training=training)
        h, state = self.gru(h, initial_state=state, training=training)
        return self.out(self.drop(h, training=training)), state


model = LM(len(vocab))
lr = tf.Variable(FLAGS.lr * hvd.size(), trainable=False)
opt = tf.keras.optimizers.SGD(learning_rate=lr)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(x, y, state, first_batch):
    with tf.GradientTape() as tape:
        logits, new_state = model(x, state, training=True)
        loss = loss_fn(y, logits)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    grads, _ = tf.clip_by_global_norm(grads, FLAGS.max_norm)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss, new_state


@tf.function
def eval_step(x, y, state):
    logits, new_state = model(x, state, training=False)
    return loss_fn(y, logits), new_state


def run_eval(data):
    state = tf.zeros((data.shape[0], FLAGS.units))
    tot, n = 0.0, 0
    for i in range(0, data.shape[1] - 1, FLAGS.bptt):
        x = data[:, i:i + FLAGS.bptt]
        y = data[:, i + 1:i + 1 + FLAGS.bptt]
        x = x[:, :y.shape[1]]
        l, state = eval_step(x, y, state)
        tot += float(l) * y.size
        n += y.size
    sums = hvd.allreduce(tf.constant([tot, float(n)], dtype=tf.float64), op=hvd.Sum, name='valid_sums')
    return float(sums[0] / sums[1])


ckpt = tf.train.Checkpoint(model=model, optimizer=opt, lr=lr)
manager = tf.train.CheckpointManager(ckpt, FLAGS.ckpt, max_to_keep=3)

first = True
best = float('inf')
for epoch in range(FLAGS.epochs):
    t0 = time.time()
    state = tf.zeros((FLAGS.batch, FLAGS.units))
    for i in range(0, train_data.shape[1] - 1, FLAGS.bptt):
        x = train_data[:, i:i + FLAGS.bptt]
        y = train_data[:, i + 1:i + 1 + FLAGS.bptt]
        x = x[:, :y.shape[1]]
        loss, state = train_step(x, y, state, first)
        state = tf.stop_gradient(state)
        first = False
    val = run_eval(valid_data)
    if val > best:
        lr.assign(lr / 4.0)
    best = min(best, val)
    if hvd.rank() == 0:
        print('epoch %d  %.0fs  last train loss %.3f  valid ppl %.2f  lr %.4f' % (
            epoch, time.time() - t0, float(loss), math.exp(val), float(lr)))
        manager.save()

if hvd.rank() == 0:
    # greedy-ish sampling from the trained model
    state = tf.zeros((1, FLAGS.units))
    tok = np.array([[w2i['<eos>']]], dtype=np.int32)
    words = []
    for _ in range(30):
        logits, state = model(tok, state)
        tok = tf.random.categorical(logits[:, -1], 1).numpy().astype(np.int32)
        words.append(vocab[int(tok[0, 0])])
    print(' '.join(words))
