import argparse
import time

import tensorflow as tf
import horovod.tensorflow as hvd

from lowres.data import cached_vocab, dataset, lookup_table
from lowres.model import ConvSeq2Seq
from lowres.schedule import NoamLike
from lowres.trainer import Trainer

p = argparse.ArgumentParser()
p.add_argument("--pair", default="si-en")
p.add_argument("--data-dir", default="data/flores")
p.add_argument("--max-tokens", type=int, default=4000)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--warmup-updates", type=int, default=2000)
p.add_argument("--epochs", type=int, default=40)
p.add_argument("--label-smoothing", type=float, default=0.2)
p.add_argument("--ckpt-dir", default="ckpt/lowres")
FLAGS = p.parse_args()


def main():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    src_l, tgt_l = FLAGS.pair.split("-")
    d = FLAGS.data_dir
    words = cached_vocab([f"{d}/train.{src_l}", f"{d}/train.{tgt_l}"], f"{d}/vocab.{FLAGS.pair}.txt")
    table = lookup_table(words)
    train = dataset(f"{d}/train.{src_l}", f"{d}/train.{tgt_l}", table, FLAGS.max_tokens, hvd.size(), hvd.rank())
    valid = dataset(f"{d}/valid.{src_l}", f"{d}/valid.{tgt_l}", table, FLAGS.max_tokens, hvd.size(), hvd.rank(),
                    shuffle=False)
    # bucketed batches come in different numbers per shard: fix the step count from the smallest shard
    n_batches = sum(1 for _ in train)
    steps = int(hvd.allreduce(tf.constant(n_batches), op=hvd.Min))

    model = ConvSeq2Seq(len(words) + 4)
    optimizer = tf.keras.optimizers.Adam(NoamLike(FLAGS.lr, FLAGS.warmup_updates), beta_2=0.98)
    trainer = Trainer(model, optimizer, FLAGS.label_smoothing, FLAGS.ckpt_dir)

    for epoch in range(FLAGS.epochs):
        t0 = time.time()
        for i, (src, tgt) in enumerate(train.take(steps)):
            loss = trainer.train_step(src, tgt)
        stats = trainer.greedy_bleu_stats(valid)
        if hvd.rank() == 0:
            print(f"epoch {epoch} ({time.time() - t0:.0f}s) last loss {float(loss):.3f} "
                  f"valid BLEU {Trainer.bleu(stats):.2f}", flush=True)
        trainer.save()


if __name__ == "__main__":
    main()
