"""Extractive QA (SQuAD v1.1, pre-featurized) with a tiny encoder: TF2 custom loop + Horovod.

    horovodrun -np 4 python run_squad.py --train_file feats/train.npz --eval_file feats/dev.npz
"""
import argparse
import os
import time

import tensorflow as tf
import horovod.tensorflow as hvd

from qa.data import load_features, to_dataset
from qa.model import SpanExtractor
from qa.dist import maybe_broadcast
from qa.metrics import span_scores

p = argparse.ArgumentParser()
p.add_argument("--train_file", default="feats/train.npz")
p.add_argument("--eval_file", default="feats/dev.npz")
p.add_argument("--output_dir", default="out/squad")
p.add_argument("--train_batch_size", type=int, default=32)
p.add_argument("--learning_rate", type=float, default=3e-4)
p.add_argument("--num_train_epochs", type=int, default=2)
p.add_argument("--warmup_proportion", type=float, default=0.1)
args = p.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
is_chief = hvd.rank() == 0

train = load_features(args.train_file)
dev = load_features(args.eval_file)
train_ds = to_dataset(train, args.train_batch_size, training=True)
dev_ds = to_dataset(dev, 128, training=False)
steps_per_epoch = len(train["input_ids"]) // hvd.size() // args.train_batch_size
num_train_steps = steps_per_epoch * args.num_train_epochs

model = SpanExtractor(vocab_size=int(train["vocab_size"]))
lr_schedule = tf.keras.optimizers.schedules.PolynomialDecay(
    args.learning_rate, decay_steps=num_train_steps, end_learning_rate=0.0)
warmup_steps = int(args.warmup_proportion * num_train_steps)


def lr_at(step):
    return tf.where(step < warmup_steps,
                    args.learning_rate * tf.cast(step + 1, tf.float32) / max(1, warmup_steps),
                    lr_schedule(step - warmup_steps))


optimizer = tf.keras.optimizers.Adam(learning_rate=args.learning_rate, epsilon=1e-6)
ce = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(ids, mask, start, end):
    with tf.GradientTape() as tape:
        s_logits, e_logits = model(ids, mask, training=True)
        loss = (ce(start, s_logits) + ce(end, e_logits)) / 2.0
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    grads, _ = tf.clip_by_global_norm(grads, 1.0)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


global_step = 0
for epoch in range(args.num_train_epochs):
    t0 = time.time()
    for ids, mask, start, end in train_ds.take(steps_per_epoch):
        optimizer.learning_rate.assign(lr_at(global_step))
        loss = train_step(ids, mask, start, end)
        maybe_broadcast(model, optimizer, global_step)
        global_step += 1
        if is_chief and global_step % 100 == 0:
            print(f"step {global_step}/{num_train_steps} loss={loss.numpy():.4f} ({time.time() - t0:.1f}s)")

    em, f1 = span_scores(model, dev_ds)
    if is_chief:
        print(f"epoch {epoch}: EM={em * 100:.2f} F1={f1 * 100:.2f}")
        os.makedirs(args.output_dir, exist_ok=True)
        model.save_weights(os.path.join(args.output_dir, f"epoch{epoch}.weights.h5"))
