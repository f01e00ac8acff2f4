"""Assignment 3 reference solution: Bahdanau-attention GRU translator (en->fr, tab-separated pairs).

Runs on one GPU or many:  horovodrun -np 4 python train.py
GLOBAL_BATCH stays fixed, so the learning rate is the one tuned on one GPU.
"""
import glob
import math
import os
from collections import Counter

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

DATA = os.environ.get("PAIRS_FILE", "data/fra.txt")
OUT = "checkpoints"
GLOBAL_BATCH = 256
LR = 1e-3
EPOCHS = 20
MAX_LEN = 20
KEEP_LAST = 5

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def tokenize(s):
    return s.lower().replace(".", " .").replace("?", " ?").replace("!", " !").split()


pairs = [line.rstrip("\n").split("\t")[:2] for line in open(DATA, encoding="utf-8")]
pairs = [(tokenize(a), tokenize(b)) for a, b in pairs if len(tokenize(a)) < MAX_LEN and len(tokenize(b)) < MAX_LEN - 2]
rng = np.random.RandomState(2024)
order = rng.permutation(len(pairs))
dev_pairs = [pairs[i] for i in order[:2000]]
train_pairs = [pairs[i] for i in order[2000:]]


def vocab_of(seqs):
    c = Counter(t for s in seqs for t in s)
    return ["<pad>", "<unk>", "<s>", "</s>"] + sorted(t for t, n in c.items() if n >= 2)


src_itos, tgt_itos = vocab_of(p[0] for p in train_pairs), vocab_of(p[1] for p in train_pairs)
src_stoi, tgt_stoi = {t: i for i, t in enumerate(src_itos)}, {t: i for i, t in enumerate(tgt_itos)}


def to_array(pairs_):
    src = np.zeros((len(pairs_), MAX_LEN), "int32")
    tgt = np.zeros((len(pairs_), MAX_LEN), "int32")
    for i, (a, b) in enumerate(pairs_):
        ids = [src_stoi.get(t, 1) for t in a]
        src[i, :len(ids)] = ids
        ids = [2] + [tgt_stoi.get(t, 1) for t in b] + [3]
        tgt[i, :len(ids)] = ids
    return src, tgt


train_src, train_tgt = to_array(train_pairs)
dev_src, dev_tgt = to_array(dev_pairs)


class Translator(keras.Model):
    def __init__(self, n_src, n_tgt, units=256):
        super().__init__()
        self.src_emb = keras.layers.Embedding(n_src, units, mask_zero=True)
        self.tgt_emb = keras.layers.Embedding(n_tgt, units)
        self.encoder = keras.layers.Bidirectional(keras.layers.GRU(units, return_sequences=True), merge_mode="sum")
        self.decoder = keras.layers.GRU(units, return_sequences=True)
        self.attention = keras.layers.AdditiveAttention()
        self.out = keras.layers.Dense(n_tgt)

    def call(self, src, tgt_in, training=False):
        enc = self.encoder(self.src_emb(src), training=training)
        dec = self.decoder(self.tgt_emb(tgt_in), training=training)
        ctx = self.attention([dec, enc], mask=[None, tf.not_equal(src, 0)])
        return self.out(tf.concat([dec, ctx], -1))


model = Translator(len(src_itos), len(tgt_itos))
steps_per_epoch = len(train_src) // GLOBAL_BATCH
local_batch = GLOBAL_BATCH // hvd.size()
schedule = keras.optimizers.schedules.CosineDecay(0.0, EPOCHS * steps_per_epoch, warmup_target=LR,
                                                  warmup_steps=steps_per_epoch)
optimizer = keras.optimizers.Adam(schedule)
xent = keras.losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1, reduction="none")


@tf.function
def train_step(src, tgt, first_batch):
    with tf.GradientTape() as tape:
        logits = model(src, tgt[:, :-1], training=True)
        mask = tf.cast(tgt[:, 1:] > 0, tf.float32)
        per_tok = xent(tf.one_hot(tgt[:, 1:], len(tgt_itos)), logits)
        loss = tf.reduce_sum(per_tok * mask) / tf.reduce_sum(mask)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    grads, _ = tf.clip_by_global_norm(grads, 1.0)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables, root_rank=0)
    return loss


def greedy_bleu(src, tgt):
    ys = np.full((len(src), 1), 2, "int32")
    for _ in range(MAX_LEN - 1):
        nxt = tf.argmax(model(src, ys)[:, -1], -1, output_type=tf.int32).numpy()[:, None]
        ys = np.concatenate([ys, nxt], 1)
    matches, totals, hyp_len, ref_len = np.zeros(4), np.zeros(4), 0, 0
    for h, r in zip(ys[:, 1:].tolist(), tgt[:, 1:].tolist()):
        h = h[:h.index(3)] if 3 in h else h
        r = [t for t in r[:r.index(3)]]
        hyp_len, ref_len = hyp_len + len(h), ref_len + len(r)
        for n in range(1, 5):
            hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
            rc = Counter(tuple(r[i:i + n]) for i in range(len(r) - n + 1))
            matches[n - 1] += sum((hc & rc).values())
            totals[n - 1] += max(len(h) - n + 1, 0)
    if matches.min() == 0:
        return 0.0
    return 100 * math.exp(np.mean(np.log(matches / totals)) + min(0.0, 1 - ref_len / max(hyp_len, 1)))


for epoch in range(EPOCHS):
    perm = np.random.RandomState(epoch).permutation(len(train_src))
    mine = perm[hvd.rank()::hvd.size()]
    for step in range(steps_per_epoch):
        idx = mine[step * local_batch:(step + 1) * local_batch]
        loss = train_step(train_src[idx], train_tgt[idx], epoch == 0 and step == 0)
    if hvd.rank() == 0:
        bleu = greedy_bleu(dev_src, dev_tgt)
        print(f"epoch {epoch + 1}: loss {float(loss):.3f} dev BLEU {bleu:.2f}")
        os.makedirs(OUT, exist_ok=True)
        model.save_weights(f"{OUT}/epoch{epoch + 1:03d}.weights.h5")

if hvd.rank() == 0:
    last = sorted(glob.glob(f"{OUT}/epoch*.weights.h5"))[-KEEP_LAST:]
    snapshots = []
    for path in last:
        model.load_weights(path)
        snapshots.append([w.numpy() for w in model.weights])
    model.set_weights([np.mean(ws, axis=0) for ws in zip(*snapshots)])
    model.save_weights(f"{OUT}/averaged.weights.h5")
    print(f"averaged {len(last)} checkpoints, dev BLEU {greedy_bleu(dev_src, dev_tgt):.2f}")
