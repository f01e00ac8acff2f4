"""Land-cover segmentation of Sentinel-2 chips, GradientTape loop + Horovod.

horovodrun -np 8 -H gpu01:4,gpu02:4 python train.py \
    --records "gs-mirror/chips/train-*.tfrec" --val-records "gs-mirror/chips/val-*.tfrec"
"""
import argparse
import os

import tensorflow as tf
import horovod.tensorflow as hvd

from lc.data import chip_dataset
from lc.model import build_segnet
from lc.optim import make_optimizer
from lc.metrics import ConfusionMatrix
from lc.tb import RankZeroWriter

p = argparse.ArgumentParser()
p.add_argument("--records", default="data/chips/train-*.tfrec")
p.add_argument("--val-records", default="data/chips/val-*.tfrec")
p.add_argument("--pretrained", default="weights/s2_encoder_ssl.weights.h5",
               help="self-supervised encoder weights ('' to train from scratch)")
p.add_argument("--workdir", default="work/landcover")
p.add_argument("--epochs", type=int, default=60)
p.add_argument("--steps-per-epoch", type=int, default=400)
p.add_argument("--batch-size", type=int, default=12)
p.add_argument("--base-lr", type=float, default=5e-4)
p.add_argument("--classes", type=int, default=9)
args = p.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

train_ds = chip_dataset(args.records, args.batch_size, train=True)
val_ds = chip_dataset(args.val_records, args.batch_size, train=False)

model = build_segnet(num_classes=args.classes)
hvd.broadcast_variables(model.variables, root_rank=0)
if hvd.rank() == 0 and args.pretrained:
    # the encoder was saved as a standalone model; copy its weights layer by layer
    model.get_layer("encoder").load_weights(args.pretrained)

optimizer, lr_schedule = make_optimizer(args.base_lr, args.epochs * args.steps_per_epoch)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
manager = tf.train.CheckpointManager(ckpt, os.path.join(args.workdir, "ckpt"), max_to_keep=3)
writer = RankZeroWriter(os.path.join(args.workdir, "tb"))


@tf.function(reduce_retracing=True)
def train_step(images, labels):
    with tf.GradientTape() as tape:
        logits = model(images, training=True)
        loss = loss_fn(labels, logits)
    tape = hvd.DistributedGradientTape(tape, compression=hvd.Compression.fp16)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function
def predict(images):
    return tf.argmax(model(images, training=False), axis=-1, output_type=tf.int32)


batches = iter(train_ds)
for epoch in range(args.epochs):
    for _ in range(args.steps_per_epoch):
        images, labels = next(batches)
        loss = train_step(images, labels)

    cm = ConfusionMatrix(args.classes)
    for images, labels in val_ds:
        cm.update(labels, predict(images))
    miou = cm.global_miou()

    writer.scalar("train/loss", loss, epoch)
    writer.scalar("train/lr", lr_schedule(optimizer.iterations), epoch)
    writer.scalar("val/miou", miou, epoch)
    if hvd.rank() == 0:
        print(f"[{epoch + 1}/{args.epochs}] loss={float(loss):.4f} mIoU={float(miou):.4f}")
        manager.save(checkpoint_number=epoch + 1)
