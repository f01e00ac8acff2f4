"""Flood-water segmentation on HLS chips (Sen1Floods11-like splits), custom TF2 loop + Horovod."""
import argparse
import os

import tensorflow as tf
import keras
import horovod.tensorflow as hvd
import horovod.tensorflow.keras as hvdk

from floodseg import dist
from floodseg.io import chip_dataset
from floodseg.unet import unet
from floodseg.losses import masked_bce_dice
from floodseg.metrics import WaterIoU

parser = argparse.ArgumentParser()
parser.add_argument("--root", default="/nobackup/hls_flood/chips")
parser.add_argument("--batch", type=int, default=8)
parser.add_argument("--epochs", type=int, default=60)
parser.add_argument("--lr", type=float, default=1e-4)
parser.add_argument("--out", default="out/flood_unet")
args = parser.parse_args()

rank, size = dist.setup()
train_ds, n_train = chip_dataset(args.root, "train", args.batch, size, rank, training=True)
val_ds, _ = chip_dataset(args.root, "val", 8, size, rank, training=False)
steps_per_epoch = n_train // (args.batch * size)

model = unet()
base_opt = keras.optimizers.AdamW(learning_rate=args.lr * size, weight_decay=1e-4)
# compiled so that model.save() writes the optimizer config too
model.compile(optimizer=hvdk.DistributedOptimizer(base_opt), loss=masked_bce_dice)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = masked_bce_dice(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    grads, _ = tf.clip_by_global_norm(grads, 5.0)
    base_opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


hvd.broadcast_variables(model.variables, root_rank=0)
it = iter(train_ds)
best_iou = 0.0
for epoch in range(args.epochs):
    for step in range(steps_per_epoch):
        x, y = next(it)
        loss = train_step(x, y)
        if step == 0 and epoch == 0:
            hvd.broadcast_variables(base_opt.variables, root_rank=0)
    iou = WaterIoU()
    for x, y in val_ds:
        iou.update(y, model(x, training=False))
    val_iou = iou.result()
    if dist.is_chief():
        print(f"epoch {epoch}: loss {float(loss):.4f} val water IoU {val_iou:.4f}", flush=True)
        if val_iou > best_iou:
            best_iou = val_iou
            os.makedirs(args.out, exist_ok=True)
            model.save(os.path.join(args.out, "best.keras"))
