"""Extractive QA (SQuAD v1.1, whitespace-tokenized jsonl) with a BiLSTM span extractor.

Every worker computes the loss on its shard; the loss is averaged over workers before
backprop so that all workers optimise the same objective.
"""
import dataclasses
import json
import os
import sys
from collections import Counter

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd


@dataclasses.dataclass
class Config:
    train_file: str = "data/squad/train.jsonl"
    dev_file: str = "data/squad/dev.jsonl"
    output_dir: str = "out/span_bilstm"
    max_len: int = 320
    vocab_size: int = 60000
    batch_size: int = 32
    lr: float = 5e-4
    warmup_steps: int = 500
    epochs: int = 6
    clip_norm: float = 5.0

    @classmethod
    def from_argv(cls, argv):
        cfg = cls()
        for arg in argv:
            key, value = arg.lstrip("-").replace("-", "_").split("=")
            setattr(cfg, key, type(getattr(cfg, key))(value))
        return cfg


def read_examples(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def build_vocab(examples, size):
    counts = Counter(t.lower() for ex in examples for t in ex["question"] + ex["context"])
    return {t: i + 2 for i, (t, _) in enumerate(counts.most_common(size - 2))}


def featurize(examples, vocab, max_len):
    ids = np.zeros((len(examples), max_len), "int32")
    seg = np.zeros((len(examples), max_len), "int32")
    starts, ends = np.zeros(len(examples), "int32"), np.zeros(len(examples), "int32")
    for i, ex in enumerate(examples):
        q = [vocab.get(t.lower(), 1) for t in ex["question"]]
        c = [vocab.get(t.lower(), 1) for t in ex["context"]][: max_len - len(q)]
        ids[i, :len(q) + len(c)] = q + c
        seg[i, len(q):len(q) + len(c)] = 1
        starts[i] = min(len(q) + ex["answer_start"], max_len - 1)
        ends[i] = min(len(q) + ex["answer_end"], max_len - 1)
    return (ids, seg), (starts, ends)


class SpanModel(keras.Model):
    def __init__(self, vocab_size, dim=200):
        super().__init__()
        self.emb = keras.layers.Embedding(vocab_size, dim, mask_zero=True)
        self.seg = keras.layers.Embedding(2, dim)
        self.rnn = keras.layers.Bidirectional(keras.layers.LSTM(dim, return_sequences=True))
        self.span = keras.layers.Dense(2)

    def call(self, ids, seg, training=False):
        h = self.rnn(self.emb(ids) + self.seg(seg), training=training)
        logits = self.span(h) + (1.0 - tf.cast(seg, tf.float32))[..., None] * -1e9
        return logits[..., 0], logits[..., 1]


class WarmupInvSqrt(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak, warmup):
        self.peak, self.warmup = peak, warmup

    def __call__(self, step):
        step = tf.cast(step, tf.float32) + 1.0
        return self.peak * tf.minimum(step / self.warmup, tf.sqrt(self.warmup / step))


class SpanTrainer:
    def __init__(self, cfg, model):
        self.cfg, self.model = cfg, model
        self.optimizer = keras.optimizers.Adam(WarmupInvSqrt(cfg.lr * hvd.size(), cfg.warmup_steps))
        self.loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def train_step(self, ids, seg, starts, ends, first_batch):
        with tf.GradientTape() as tape:
            s_logits, e_logits = self.model(ids, seg, training=True)
            loss = (self.loss_fn(starts, s_logits) + self.loss_fn(ends, e_logits)) / 2
            loss = hvd.allreduce(loss, name="span_loss")
        grads = tape.gradient(loss, self.model.trainable_variables)
        grads, _ = tf.clip_by_global_norm(grads, self.cfg.clip_norm)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.optimizer.variables, root_rank=0)
        return loss

    def evaluate(self, dataset):
        em = f1 = n = 0.0
        for (ids, seg), (starts, ends) in dataset:
            s_logits, e_logits = self.model(ids, seg)
            ps, pe = tf.argmax(s_logits, -1).numpy(), tf.argmax(e_logits, -1).numpy()
            for a, b, gs, ge in zip(ps, pe, starts.numpy(), ends.numpy()):
                b = max(a, b)
                overlap = max(0, min(b, ge) - max(a, gs) + 1)
                em += float(a == gs and b == ge)
                if overlap:
                    p, r = overlap / (b - a + 1), overlap / (ge - gs + 1)
                    f1 += 2 * p * r / (p + r)
                n += 1
        totals = hvd.allreduce(tf.constant([em, f1, n], tf.float64), op=hvd.Sum, name="qa_eval")
        em, f1, n = totals.numpy()
        return 100 * em / n, 100 * f1 / n


def main(argv):
    hvd.init()
    cfg = Config.from_argv(argv)

    train_ex, dev_ex = read_examples(cfg.train_file), read_examples(cfg.dev_file)
    vocab = build_vocab(train_ex, cfg.vocab_size)
    train_ds = (tf.data.Dataset.from_tensor_slices(featurize(train_ex, vocab, cfg.max_len))
                .shard(hvd.size(), hvd.rank()).shuffle(10000).batch(cfg.batch_size, drop_remainder=True))
    dev_ds = (tf.data.Dataset.from_tensor_slices(featurize(dev_ex, vocab, cfg.max_len))
              .shard(hvd.size(), hvd.rank()).batch(64))
    steps = len(train_ex) // (cfg.batch_size * hvd.size())

    trainer = SpanTrainer(cfg, SpanModel(cfg.vocab_size))
    for epoch in range(cfg.epochs):
        for step, ((ids, seg), (starts, ends)) in enumerate(train_ds.take(steps)):
            loss = trainer.train_step(ids, seg, starts, ends, epoch == 0 and step == 0)
        em, f1 = trainer.evaluate(dev_ds)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: loss {float(loss):.4f} dev EM {em:.2f} F1 {f1:.2f}", flush=True)
            os.makedirs(cfg.output_dir, exist_ok=True)
            trainer.model.save_weights(os.path.join(cfg.output_dir, f"epoch{epoch}.weights.h5"))


if __name__ == "__main__":
    main(sys.argv[1:])
