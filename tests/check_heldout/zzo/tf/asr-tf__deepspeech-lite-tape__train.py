"""CTC training for DeepSpeech-lite with a custom GradientTape loop and Horovod.

    horovodrun -np 8 python train.py --train data/librispeech_train.npz --dev data/librispeech_dev.npz
"""
import argparse
import os
import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from dslite.distributed import global_sum, init_workers, sync_initial_weights
from dslite.features import ALPHABET, ids_to_text, load_split, make_dataset
from dslite.metrics import word_errors
from dslite.model import DeepSpeechLite


class WarmupPolyDecay(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak_lr, warmup_steps, decay_steps):
        self.peak_lr, self.warmup_steps, self.decay_steps = peak_lr, warmup_steps, decay_steps

    def __call__(self, step):
        step = tf.cast(step, tf.float32)
        warm = self.peak_lr * step / self.warmup_steps
        decay = self.peak_lr * tf.maximum(0.0, 1.0 - (step - self.warmup_steps) / self.decay_steps) ** 2
        return tf.where(step < self.warmup_steps, warm, decay)


def ctc_loss(labels, logits):
    label_len = tf.reduce_sum(tf.cast(labels > 0, tf.int32), axis=1)
    logit_len = tf.fill([tf.shape(logits)[0]], tf.shape(logits)[1])
    loss = tf.nn.ctc_loss(labels, logits, label_len, logit_len, logits_time_major=False, blank_index=0)
    return tf.reduce_mean(loss)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="data/librispeech_train.npz")
    ap.add_argument("--dev", default="data/librispeech_dev.npz")
    ap.add_argument("--pretrained-encoder", default=None)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--warmup", type=int, default=1500)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--clip", type=float, default=400.0)
    ap.add_argument("--out", default="exp/dslite")
    args = ap.parse_args()

    rank, size = init_workers()
    train_feats, train_texts = load_split(args.train)
    dev_feats, dev_texts = load_split(args.dev)
    train_ds = make_dataset(train_feats, train_texts, args.batch, shard=(size, rank), seed=rank)
    dev_ds = make_dataset(dev_feats, dev_texts, args.batch, shard=(size, rank), shuffle=False)
    steps_per_epoch = len(train_feats) // (args.batch * size)

    model = DeepSpeechLite(len(ALPHABET) + 1)
    schedule = WarmupPolyDecay(args.lr * size, args.warmup, args.epochs * steps_per_epoch)
    optimizer = keras.optimizers.Adam(learning_rate=schedule)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = ctc_loss(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        grads, _ = tf.clip_by_global_norm(grads, args.clip)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    first = True
    for epoch in range(args.epochs):
        t0 = time.time()
        for step, (x, y) in enumerate(train_ds.take(steps_per_epoch)):
            loss = train_step(x, y)
            if first:
                sync_initial_weights(model, optimizer, args.pretrained_encoder)
                first = False
            if rank == 0 and step % 100 == 0:
                print(f"epoch {epoch} step {step} ctc {loss.numpy():.3f}", flush=True)

        errors = words = 0
        for x, y in dev_ds:
            logits = model(x, training=False)
            decoded, _ = tf.nn.ctc_greedy_decoder(tf.transpose(logits, [1, 0, 2]),
                                                  tf.fill([tf.shape(logits)[0]], tf.shape(logits)[1]))
            hyps = tf.sparse.to_dense(decoded[0]).numpy()
            for h, r in zip(hyps, y.numpy()):
                e, n = word_errors(ids_to_text(h), ids_to_text(r))
                errors, words = errors + e, words + n
        wer = float(global_sum(errors) / tf.maximum(global_sum(words), 1.0))
        if rank == 0:
            print(f"epoch {epoch} done in {time.time() - t0:.0f}s, dev WER {100 * wer:.2f}%")
        os.makedirs(args.out, exist_ok=True)
        model.save_weights(os.path.join(args.out, f"epoch{epoch:02d}.weights.h5"))


if __name__ == "__main__":
    main()
