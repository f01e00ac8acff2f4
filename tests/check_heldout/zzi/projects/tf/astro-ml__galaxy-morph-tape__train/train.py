"""Galaxy morphology (5 classes) with a custom training loop.

horovodrun -np 4 python train.py --cutouts /project/galaxies/cutouts_64.npz
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from galaxy.data import load_cutouts, holdout, train_stream, eval_stream
from galaxy.net import morph_resnet
from galaxy.schedule import warmup_cosine
from galaxy.log import Meter

parser = argparse.ArgumentParser()
parser.add_argument("--cutouts", required=True)
parser.add_argument("--global-batch", type=int, default=512)
parser.add_argument("--peak-lr", type=float, default=0.4, help="lr for the global batch")
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--n-val", type=int, default=5000)
parser.add_argument("--ckpt-dir", default="ckpt/morph")
args = parser.parse_args()

hvd.init()
for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

per_rank = args.global_batch // hvd.size()
images, labels = load_cutouts(args.cutouts)
(tr_x, tr_y), (va_x, va_y) = holdout(images, labels, args.n_val)
train_ds = train_stream(tr_x, tr_y, per_rank, hvd.size(), hvd.rank(), seed=11)
steps_per_epoch = len(tr_x) // args.global_batch
total_steps = steps_per_epoch * args.epochs

model = morph_resnet(size=tr_x.shape[1], bands=tr_x.shape[3])
opt = keras.optimizers.SGD(learning_rate=args.peak_lr, momentum=0.9, nesterov=True)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

ckpt = tf.train.Checkpoint(model=model, optimizer=opt, epoch=tf.Variable(0))
manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=3)
ckpt.restore(manager.latest_checkpoint)
start_epoch = int(ckpt.epoch.numpy())


@tf.function
def train_step(x, y, first):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    if first:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


def evaluate():
    correct = 0
    for x, y in eval_stream(va_x, va_y, 1024):
        pred = tf.argmax(model(x, training=False), axis=-1)
        correct += int(tf.reduce_sum(tf.cast(pred == y, tf.int32)))
    return correct / len(va_x)


meter = Meter()
it = iter(train_ds)
step = start_epoch * steps_per_epoch
for epoch in range(start_epoch, args.epochs):
    losses = []
    for _ in range(steps_per_epoch):
        opt.learning_rate.assign(warmup_cosine(step, total_steps, args.peak_lr, 3 * steps_per_epoch))
        x, y = next(it)
        losses.append(float(train_step(x, y, step == start_epoch * steps_per_epoch)))
        step += 1
    mean_loss = float(hvd.allreduce(tf.constant(np.mean(losses)), op=hvd.Average))
    val_acc = evaluate()
    ckpt.epoch.assign(epoch + 1)
    if hvd.rank() == 0:
        print(meter.line(epoch, loss=mean_loss, val_acc=val_acc, lr=float(opt.learning_rate)))
        manager.save()
