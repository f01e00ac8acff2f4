"""Attentional GRU summariser on Gigaword headlines, TF2 + Horovod."""
import argparse
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from rnnsumm.data import build_vocab, pipeline, to_array
from rnnsumm.log_utils import get_logger
from rnnsumm.model import Seq2Seq
from rnnsumm.rouge import rouge2


def load(path):
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="gigaword")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--ckpt", default="ckpt/rnnsumm")
    args = ap.parse_args()

    hvd.init()
    log = get_logger()
    for g in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(g, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    art, head = load(f"{args.data}/train.article"), load(f"{args.data}/train.title")
    vocab = build_vocab(art + head, f"{args.data}/vocab.pkl") if hvd.rank() == 0 else None
    vocab = hvd.broadcast_object(vocab, root_rank=0)
    src, tgt = to_array(art, vocab, 80, False), to_array(head, vocab, 24, True)
    v_src = to_array(load(f"{args.data}/valid.article"), vocab, 80, False)
    v_tgt = to_array(load(f"{args.data}/valid.title"), vocab, 24, True)
    train_ds = pipeline(src, tgt, args.batch, hvd.rank(), hvd.size(), seed=epoch_seed(0))
    steps = len(src) // (args.batch * hvd.size())

    model = Seq2Seq(len(vocab) + 4)
    opt = tf.keras.optimizers.Adam(args.lr * hvd.size())
    xent = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")

    @tf.function
    def step(s, t, first):
        with tf.GradientTape() as tape:
            logits, _, _ = model(s, t[:, :-1])
            mask = tf.cast(t[:, 1:] > 0, tf.float32)
            loss = tf.reduce_sum(xent(t[:, 1:], logits) * mask) / tf.reduce_sum(mask)
        dtape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    ckpt = tf.train.Checkpoint(model=model, opt=opt)
    for epoch in range(args.epochs):
        for i, (s, t) in enumerate(train_ds.take(steps)):
            loss = step(s, t, epoch == 0 and i == 0)
            if i % 500 == 0:
                log.info("epoch %d step %d loss %.4f", epoch, i, float(loss))

        # every rank decodes the same first 1000 validation headlines
        scores = []
        for k in range(0, 1000, 100):
            s = v_src[k:k + 100]
            ys, state, mem = np.ones((len(s), 1), np.int32), None, None
            out = []
            for _ in range(20):
                logits, state, mem = model(s if mem is None else None, ys[:, -1:], state, mem)
                ys = np.concatenate([ys, tf.argmax(logits[:, -1:], -1, output_type=tf.int32).numpy()], 1)
            for h, r in zip(ys[:, 1:].tolist(), v_tgt[k:k + 100].tolist()):
                scores.append(rouge2([w for w in h if w > 2], [w for w in r[1:] if w > 2]))
        log.info("epoch %d ROUGE-2 %.2f", epoch, 100 * float(np.mean(scores)))
        if hvd.rank() == 0:
            ckpt.write(os.path.join(args.ckpt, f"epoch-{epoch}"))


def epoch_seed(e):
    return 1000 + e


if __name__ == "__main__":
    main()
