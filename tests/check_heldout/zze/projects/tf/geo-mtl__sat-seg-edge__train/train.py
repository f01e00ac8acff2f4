"""Multi-task U-Net: footprint mask (CE + dice) and boundary map, Horovod GradientTape loop."""
import argparse
import os

import keras
import tensorflow as tf
import horovod.tensorflow as hvd

from satmtl.data import make_dataset
from satmtl.hvd_utils import init_workers, is_chief, sum_over_workers
from satmtl.losses import dice_loss, edge_loss, mask_loss
from satmtl.model import build_model

ap = argparse.ArgumentParser()
ap.add_argument("--train-npz", default="data/train_tiles.npz")
ap.add_argument("--val-npz", default="data/val_tiles.npz")
ap.add_argument("--tile", type=int, default=256)
ap.add_argument("--batch", type=int, default=8, help="tiles per worker")
ap.add_argument("--epochs", type=int, default=50)
ap.add_argument("--lr", type=float, default=5e-4)
ap.add_argument("--edge-weight", type=float, default=0.5)
ap.add_argument("--dice-weight", type=float, default=1.0)
ap.add_argument("--clipnorm", type=float, default=1.0)
ap.add_argument("--mixed-precision", action="store_true")
ap.add_argument("--ckpt-dir", default="ckpts/seg_edge")
args = ap.parse_args()

rank, world = init_workers()
if args.mixed_precision:
    keras.mixed_precision.set_global_policy("mixed_float16")

train_ds, steps_per_epoch = make_dataset(args.train_npz, args.batch, world, rank, training=True)
val_ds, _ = make_dataset(args.val_npz, args.batch, world, rank, training=False)

model = build_model((args.tile, args.tile, 3))
schedule = keras.optimizers.schedules.CosineDecay(args.lr * world, decay_steps=args.epochs * steps_per_epoch)
opt = keras.optimizers.Adam(schedule, global_clipnorm=args.clipnorm)
if args.mixed_precision:
    opt = keras.mixed_precision.LossScaleOptimizer(opt)

ckpt = tf.train.Checkpoint(model=model, optimizer=opt, epoch=tf.Variable(0, dtype=tf.int64))
manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=3)


@tf.function
def train_step(images, targets, first_batch):
    with tf.GradientTape() as tape:
        out = model(images, training=True)
        l_mask = mask_loss(targets["mask"], out["mask"]) + args.dice_weight * dice_loss(targets["mask"], out["mask"])
        l_edge = edge_loss(targets["edge"], out["edge"])
        loss = l_mask + args.edge_weight * l_edge
        scaled = opt.scale_loss(loss) if args.mixed_precision else loss
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(scaled, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss, l_mask, l_edge


def validate():
    counts = tf.zeros(3)  # intersection, union, n_loss_batches
    loss_sum = tf.zeros(())
    for images, targets in val_ds:
        out = model(images, training=False)
        pred = tf.argmax(out["mask"], -1, output_type=tf.int32)
        y = targets["mask"]
        inter = tf.reduce_sum(tf.cast((pred == 1) & (y == 1), tf.float32))
        union = tf.reduce_sum(tf.cast((pred == 1) | (y == 1), tf.float32))
        counts += tf.stack([inter, union, 1.0])
        loss_sum += mask_loss(y, out["mask"])
    counts = sum_over_workers(counts, "val_counts")
    loss_sum = sum_over_workers(loss_sum, "val_loss")
    return float(counts[0] / tf.maximum(counts[1], 1.0)), float(loss_sum / tf.maximum(counts[2], 1.0))


train_iter = iter(train_ds)
for epoch in range(args.epochs):
    for step in range(steps_per_epoch):
        images, targets = next(train_iter)
        loss, l_mask, l_edge = train_step(images, targets, epoch == 0 and step == 0)
        if step % 50 == 0 and is_chief():
            print(f"epoch {epoch} step {step}/{steps_per_epoch} loss {loss:.4f} mask {l_mask:.4f} edge {l_edge:.4f}")
    iou, val_loss = validate()
    if is_chief():
        print(f"== epoch {epoch}: val IoU {iou:.4f} val mask loss {val_loss:.4f}")
        ckpt.epoch.assign(epoch)
        manager.save()
