import argparse
import os

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from platform_utils import get_logger, stopwatch
from segsvc.net import WarmupCosine, tiny_unet
from segsvc.pipeline import list_tiles, tile_dataset

hvd.init()
for dev in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(dev, True)
_gpus = tf.config.list_physical_devices("GPU")
if _gpus:
    tf.config.set_visible_devices(_gpus[hvd.local_rank()], "GPU")

ap = argparse.ArgumentParser()
ap.add_argument("--train-index", default="gs-mirror/tiles/train.idx")
ap.add_argument("--eval-index", default="gs-mirror/tiles/eval.idx")
ap.add_argument("--classes", type=int, default=5)
ap.add_argument("--batch", type=int, default=8, help="per worker")
ap.add_argument("--lr", type=float, default=2e-4, help="single-worker peak lr")
ap.add_argument("--steps-per-epoch", type=int, default=500)
ap.add_argument("--eval-steps", type=int, default=50)
ap.add_argument("--epochs", type=int, default=25)
ap.add_argument("--model-dir", default="/checkpoints/tile-segmenter")
args = ap.parse_args()

log = get_logger("segmenter", hvd.rank())
train_ds = tile_dataset(list_tiles(args.train_index), hvd.rank(), hvd.size(), args.batch)
eval_ds = tile_dataset(list_tiles(args.eval_index), hvd.rank(), hvd.size(), args.batch).repeat()

model = tiny_unet(args.classes)
schedule = WarmupCosine(args.lr * hvd.size(), warmup_steps=2 * args.steps_per_epoch,
                        total_steps=args.epochs * args.steps_per_epoch)
opt = keras.optimizers.AdamW(learning_rate=schedule, weight_decay=1e-4)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
manager = tf.train.CheckpointManager(ckpt, args.model_dir, max_to_keep=3)


@tf.function
def train_step(images, masks):
    with tf.GradientTape() as tape:
        loss = loss_fn(masks, model(images, training=True))
    tape = hvd.DistributedGradientTape(tape, compression=hvd.Compression.fp16)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function
def eval_step(images, masks):
    logits = model(images, training=False)
    pred = tf.argmax(logits, axis=-1, output_type=tf.int32)
    return loss_fn(masks, logits), tf.reduce_mean(tf.cast(tf.equal(pred, masks), tf.float32))


timings = {}
train_iter, eval_iter = iter(train_ds), iter(eval_ds)
for epoch in range(args.epochs):
    with stopwatch(timings, "train"):
        for step in range(args.steps_per_epoch):
            loss = train_step(*next(train_iter))
            if epoch == 0 and step == 0:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(opt.variables, root_rank=0)

    losses, accs = [], []
    for _ in range(args.eval_steps):
        l, a = eval_step(*next(eval_iter))
        losses.append(l)
        accs.append(a)
    eval_loss = hvd.allreduce(tf.reduce_mean(losses), name="eval_loss")
    pixel_acc = hvd.allreduce(tf.reduce_mean(accs), name="pixel_acc")

    if hvd.rank() == 0:
        log.info("epoch %d loss %.4f eval_loss %.4f pixel_acc %.4f (%.0fs)", epoch, float(loss),
                 float(eval_loss), float(pixel_acc), timings["train"])
        manager.save(checkpoint_number=epoch)
