"""Spinal cord segmentation on axial T2w slices (tape loop, Horovod). Resumes from ckpt_dir if present.

    mpirun -np 8 python train.py --root /project/def-bic/spine/axial_192
"""
import argparse
import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from spine.data import list_slices, make_ds, shard_files
from spine.lr import cosine, scaled_lr
from spine.model import cord_unet
from spine.utils import is_chief, log, seed_everything

p = argparse.ArgumentParser()
p.add_argument("--root", default="/project/def-bic/spine/axial_192")
p.add_argument("--size", type=int, default=192)
p.add_argument("--batch-size", type=int, default=16)
p.add_argument("--base-lr", type=float, default=5e-4)
p.add_argument("--epochs", type=int, default=100)
p.add_argument("--seed", type=int, default=42)
p.add_argument("--ckpt-dir", default="checkpoints/cord_unet")
args = p.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
seed_everything(args.seed + hvd.rank())  # different augmentation / dropout per worker

all_train = list_slices(args.root, "train", shuffle=True)
train_files = shard_files(all_train, hvd.rank(), hvd.size())
val_files = shard_files(list_slices(args.root, "val"), hvd.rank(), hvd.size())
train_ds = make_ds(train_files, args.batch_size, args.size, training=True)
val_ds = make_ds(val_files, args.batch_size, args.size, training=False)
steps = len(all_train) // (args.batch_size * hvd.size())  # same on every worker
log(f"{hvd.size()} workers, {len(train_files)} train slices per worker, {steps} steps/epoch")

model = cord_unet(args.size)
lr = scaled_lr(args.base_lr, args.batch_size)
opt = keras.optimizers.Adam(learning_rate=lr)
bce = keras.losses.BinaryCrossentropy()

ckpt = tf.train.Checkpoint(model=model, optimizer=opt, epoch=tf.Variable(0))
manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=2)
if manager.latest_checkpoint:
    ckpt.restore(manager.latest_checkpoint)
    log("resumed from", manager.latest_checkpoint)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        pred = model(x, training=True)
        inter = tf.reduce_sum(pred * y)
        dice_loss = 1.0 - (2.0 * inter + 1.0) / (tf.reduce_sum(pred) + tf.reduce_sum(y) + 1.0)
        loss = bce(y, pred) + dice_loss
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


first = True
it = iter(train_ds)
for epoch in range(int(ckpt.epoch.numpy()), args.epochs):
    opt.learning_rate.assign(cosine(lr, epoch, args.epochs))
    t0 = time.time()
    for _ in range(steps):
        x, y = next(it)
        loss = train_step(x, y)
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
            first = False

    inter = union = 0.0
    for x, y in val_ds:
        pred = tf.cast(model(x, training=False) > 0.5, tf.float32)
        inter += float(tf.reduce_sum(pred * y))
        union += float(tf.reduce_sum(pred) + tf.reduce_sum(y))
    sums = hvd.allreduce(tf.constant([inter, union]), op=hvd.Sum, name="val_dice_sums")
    dice = float(2.0 * sums[0] / (sums[1] + 1e-6))
    log(f"epoch {epoch}  loss {float(loss):.4f}  val Dice {dice:.4f}  {time.time() - t0:.0f}s")
    ckpt.epoch.assign(epoch + 1)
    if is_chief():
        manager.save()
