#!/usr/bin/env python
"""Speech Commands v2 keyword model: MFCC front end + conv/BiLSTM, custom training loop, Horovod.

Usage:
    horovodrun -np 4 python train_tape.py --data-dir /datasets/speech_commands_v0.02
"""
import argparse
import os
import random
import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

AUTOTUNE = tf.data.AUTOTUNE
SAMPLE_RATE = 16000

hvd.init()
for gpu in tf.config.experimental.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
gpus = tf.config.experimental.list_physical_devices("GPU")
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data-dir", default="data/speech_commands")
    p.add_argument("--batch-size", type=int, default=100)
    p.add_argument("--base-lr", type=float, default=5e-4)
    p.add_argument("--warmup-steps", type=int, default=1000)
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--patience", type=int, default=5)
    p.add_argument("--ckpt-dir", default="ckpt")
    return p.parse_args()


def list_split(data_dir):
    with open(os.path.join(data_dir, "validation_list.txt")) as f:
        val = set(line.strip() for line in f)
    classes = sorted(d for d in os.listdir(data_dir)
                     if os.path.isdir(os.path.join(data_dir, d)) and not d.startswith("_"))
    train_items, val_items = [], []
    for ci, c in enumerate(classes):
        for fn in sorted(os.listdir(os.path.join(data_dir, c))):
            rel = f"{c}/{fn}"
            (val_items if rel in val else train_items).append((os.path.join(data_dir, rel), ci))
    return classes, train_items, val_items


def mfcc(path, label):
    audio, _ = tf.audio.decode_wav(tf.io.read_file(path), desired_channels=1)
    audio = tf.squeeze(audio, -1)
    stft = tf.signal.stft(audio, frame_length=480, frame_step=160, fft_length=512)
    mel_w = tf.signal.linear_to_mel_weight_matrix(40, 257, SAMPLE_RATE, 20.0, 7600.0)
    log_mel = tf.math.log(tf.tensordot(tf.abs(stft) ** 2, mel_w, 1) + 1e-6)
    return tf.signal.mfccs_from_log_mel_spectrograms(log_mel)[:, :20], label


def make_dataset(items, batch_size, training):
    paths = tf.constant([p for p, _ in items])
    labels = tf.constant([l for _, l in items], dtype=tf.int32)
    ds = tf.data.Dataset.from_tensor_slices((paths, labels))
    ds = ds.shard(hvd.size(), hvd.rank())
    if training:
        ds = ds.shuffle(10000).repeat()
    ds = ds.map(mfcc, num_parallel_calls=AUTOTUNE)
    ds = ds.bucket_by_sequence_length(lambda x, y: tf.shape(x)[0], bucket_boundaries=[50, 75, 100],
                                      bucket_batch_sizes=[batch_size] * 4, pad_to_bucket_boundary=False)
    return ds.prefetch(AUTOTUNE)


def build_model(n_classes):
    inp = keras.Input((None, 20))
    x = keras.layers.Conv1D(128, 5, padding="same", activation="relu")(inp)
    x = keras.layers.BatchNormalization()(x)
    x = keras.layers.Bidirectional(keras.layers.LSTM(96, return_sequences=True))(x)
    x = keras.layers.GlobalMaxPooling1D()(x)
    x = keras.layers.Dropout(0.2)(x)
    return keras.Model(inp, keras.layers.Dense(n_classes)(x))


class WarmupThenDecay(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak, warmup, decay_steps):
        self.peak, self.warmup, self.decay_steps = peak, warmup, decay_steps

    def __call__(self, step):
        step = tf.cast(step, tf.float32)
        warm = self.peak * step / self.warmup
        decay = self.peak * 0.5 ** ((step - self.warmup) / self.decay_steps)
        return tf.where(step < self.warmup, warm, decay)


def main():
    args = get_args()
    random.seed(0)
    classes, train_items, val_items = list_split(args.data_dir)
    random.shuffle(train_items)   # seeded: the same order on every worker before sharding

    steps_per_epoch = len(train_items) // (args.batch_size * hvd.size())
    train_ds = make_dataset(train_items, args.batch_size, training=True)
    val_ds = make_dataset(val_items, args.batch_size, training=False)

    model = build_model(len(classes))
    lr = WarmupThenDecay(args.base_lr * hvd.size(), args.warmup_steps, 5 * steps_per_epoch)
    opt = keras.optimizers.Adam(learning_rate=lr)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function(reduce_retracing=True)
    def train_step(x, y, first_batch):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    @tf.function(reduce_retracing=True)
    def eval_step(x, y):
        logits = model(x, training=False)
        loss_sum = tf.reduce_sum(keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True))
        correct = tf.reduce_sum(tf.cast(tf.equal(tf.argmax(logits, -1, output_type=tf.int32), y), tf.float32))
        return loss_sum, correct, tf.cast(tf.size(y), tf.float32)

    best_acc, bad = 0.0, 0
    train_iter = iter(train_ds)
    for epoch in range(args.epochs):
        t0 = time.time()
        for step in range(steps_per_epoch):
            x, y = next(train_iter)
            loss = train_step(x, y, epoch == 0 and step == 0)

        totals = tf.zeros(3)
        for x, y in val_ds:
            totals += tf.stack(eval_step(x, y))
        totals = hvd.allreduce(totals, op=hvd.Sum)
        val_loss, val_acc = float(totals[0] / totals[2]), float(totals[1] / totals[2])

        if hvd.rank() == 0:
            print(f"epoch {epoch}: loss {float(loss):.4f} val_loss {val_loss:.4f} val_acc {val_acc:.4f} "
                  f"({time.time() - t0:.0f}s)", flush=True)
        if val_acc > best_acc:
            best_acc, bad = val_acc, 0
            if hvd.rank() == 0:
                os.makedirs(args.ckpt_dir, exist_ok=True)
                model.save_weights(os.path.join(args.ckpt_dir, "best.weights.h5"))
        else:
            bad += 1
            if bad >= args.patience:
                break


if __name__ == "__main__":
    main()
