#!/usr/bin/env python
import argparse
import os

import tensorflow as tf
import horovod.tensorflow as hvd

from t5lite import data
from t5lite.metrics import global_average, rouge_l
from t5lite.model import Summarizer
from t5lite.steps import greedy_decode, make_train_step


def parse_args():
    ap = argparse.ArgumentParser("t5lite summarisation trainer")
    ap.add_argument("--train", default="data/xsum_train.jsonl")
    ap.add_argument("--valid", default="data/xsum_valid.jsonl")
    ap.add_argument("--vocab", default="data/char_vocab.json")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--label-smoothing", type=float, default=0.1)
    ap.add_argument("--model-dir", default="runs/t5lite")
    ap.add_argument("--gen-len", type=int, default=64)
    return ap.parse_args()


def main():
    args = parse_args()
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    vocab = data.char_vocab(args.vocab, args.train)
    tr_src, tr_tgt = data.read_examples(args.train, vocab, 512, 96)
    va_src, va_tgt = data.read_examples(args.valid, vocab, 512, 96)
    train_ds = data.make_dataset(tr_src, tr_tgt, args.batch_size, hvd.size(), hvd.rank())
    valid_ds = data.make_dataset(va_src, va_tgt, 64, hvd.size(), hvd.rank(), training=False)
    # same number of steps on every rank, or the last allreduce of an epoch waits forever
    steps_per_epoch = len(tr_src) // (args.batch_size * hvd.size())

    model = Summarizer(len(vocab) + 3)
    lr = tf.keras.optimizers.schedules.InverseTimeDecay(args.lr * hvd.size(), 10000, 0.5)
    optimizer = tf.keras.optimizers.Adam(lr)
    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, epoch=tf.Variable(0))
    manager = tf.train.CheckpointManager(ckpt, args.model_dir, max_to_keep=3)
    if manager.latest_checkpoint:
        ckpt.restore(manager.latest_checkpoint)
    train_step = make_train_step(model, optimizer, args.label_smoothing)

    first = True
    for epoch in range(int(ckpt.epoch.numpy()), args.epochs):
        loss_sum, n = 0.0, 0
        for src, tgt in train_ds.take(steps_per_epoch):
            loss = train_step(src, tgt, tf.constant(first))
            first = False
            loss_sum, n = loss_sum + float(loss), n + 1
        train_loss = global_average(loss_sum, n)

        r_sum, r_cnt = 0.0, 0
        for src, tgt in valid_ds:
            hyp = greedy_decode(model, src, args.gen_len).numpy().tolist()
            for h, r in zip(hyp, tgt.numpy().tolist()):
                h = h[:h.index(2)] if 2 in h else h
                r_sum += rouge_l(h, [c for c in r[1:] if c > 2])
                r_cnt += 1
        val_rouge = global_average(r_sum, r_cnt)

        ckpt.epoch.assign(epoch + 1)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: train loss {train_loss:.4f}  val ROUGE-L {100 * val_rouge:.2f}")
            manager.save()


if __name__ == "__main__":
    main()
