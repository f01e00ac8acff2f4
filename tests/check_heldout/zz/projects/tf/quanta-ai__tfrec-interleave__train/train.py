"""1-D signal classifier trained from interleaved TFRecord shards (TF2 + Horovod)."""
import argparse
import os

import horovod.tensorflow as hvd
import keras
import tensorflow as tf

from pipeline.hvd_utils import global_sum, setup_horovod
from pipeline.input import make_dataset
from pipeline.model import build_model

p = argparse.ArgumentParser()
p.add_argument("--train-files", default="records/train-*.tfrecord")
p.add_argument("--eval-files", default="records/eval-*.tfrecord")
p.add_argument("--batch", type=int, default=256)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--steps-per-epoch", type=int, default=500)
p.add_argument("--epochs", type=int, default=20)
p.add_argument("--model-dir", default="model_dir")
FLAGS = p.parse_args()

rank, size = setup_horovod()

train_ds = make_dataset(FLAGS.train_files, FLAGS.batch, size, rank, training=True, seed=rank)
eval_ds = make_dataset(FLAGS.eval_files, 512, size, rank, training=False)

model = build_model()
opt = keras.optimizers.Adam(learning_rate=FLAGS.lr * size)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

ckpt = tf.train.Checkpoint(model=model, optimizer=opt, epoch=tf.Variable(0, dtype=tf.int64))
manager = tf.train.CheckpointManager(ckpt, FLAGS.model_dir, max_to_keep=3)
if manager.latest_checkpoint:
    # the checkpoint directory is on the shared filesystem: every rank restores the same file
    ckpt.restore(manager.latest_checkpoint)


@tf.function
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


@tf.function
def eval_step(x, y):
    logits = model(x, training=False)
    loss = tf.reduce_sum(loss_fn(y, logits) * tf.cast(tf.shape(y)[0], tf.float32))
    correct = tf.reduce_sum(tf.cast(tf.equal(tf.argmax(logits, 1, output_type=tf.int32), y), tf.float32))
    return loss, correct


it = iter(train_ds)
first = True
for epoch in range(int(ckpt.epoch.numpy()), FLAGS.epochs):
    for step in range(FLAGS.steps_per_epoch):
        x, y = next(it)
        loss = train_step(x, y, first)
        first = False
        if rank == 0 and step % 100 == 0:
            print(f"epoch {epoch} step {step} loss {loss.numpy():.4f}")

    tot_loss, tot_correct, n = 0.0, 0.0, 0.0
    for x, y in eval_ds:
        l, c = eval_step(x, y)
        tot_loss += float(l)
        tot_correct += float(c)
        n += int(y.shape[0])
    tot_loss, tot_correct, n = global_sum([tot_loss, tot_correct, n]).numpy()
    ckpt.epoch.assign(epoch + 1)
    if rank == 0:
        print(f"epoch {epoch}: eval loss {tot_loss / n:.4f} acc {tot_correct / n:.4f}")
        manager.save(checkpoint_number=epoch)
