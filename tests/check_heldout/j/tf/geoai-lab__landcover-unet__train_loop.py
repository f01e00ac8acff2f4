"""Training function run by every Horovod process (see run.py, which calls horovod.run)."""
import os
import time

import tensorflow as tf
import horovod.tensorflow as hvd

from landcover import CLASSES
from landcover.metrics import ConfusionCounter, global_mean
from landcover.tiles import list_tiles, load_split
from landcover.unet import build_unet


class WarmupConstant(tf.keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak, warmup_steps):
        self.peak, self.warmup_steps = peak, warmup_steps

    def __call__(self, step):
        ramp = tf.cast(step + 1, tf.float32) / float(self.warmup_steps)
        return self.peak * tf.minimum(1.0, ramp)


def train(cfg):
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_files = list_tiles(cfg["data"], "train")
    val_files = list_tiles(cfg["data"], "val")
    train_ds = load_split(train_files, cfg["batch_size"], num_shards=hvd.size(), shard_index=hvd.local_rank(),
                          training=True)
    val_ds = load_split(val_files, cfg["batch_size"])
    steps = len(train_files) // (cfg["batch_size"] * hvd.size())

    model = build_unet(len(CLASSES))
    sgd = tf.keras.optimizers.SGD(WarmupConstant(cfg["lr"] * hvd.size(), 3 * steps), momentum=0.9)
    ckpt = tf.train.Checkpoint(model=model, optimizer=sgd, epoch=tf.Variable(0, dtype=tf.int64))
    manager = tf.train.CheckpointManager(ckpt, cfg["ckpt_dir"], max_to_keep=3)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    # Horovod: same initial weights everywhere
    hvd.broadcast_variables(model.variables, root_rank=0)

    if hvd.rank() == 0 and manager.latest_checkpoint:
        ckpt.restore(manager.latest_checkpoint)
        print("resumed from", manager.latest_checkpoint, flush=True)
    start_epoch = int(ckpt.epoch.numpy())

    @tf.function
    def step_fn(img, mask):
        with tf.GradientTape() as tape:
            loss = loss_fn(mask, model(img, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        sgd.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    for epoch in range(start_epoch, cfg["epochs"]):
        tic, total = time.time(), 0.0
        for img, mask in train_ds.take(steps):
            total += float(step_fn(img, mask))
        train_loss = global_mean(total / steps, "train_loss")

        counter = ConfusionCounter(len(CLASSES))
        for img, mask in val_ds:
            counter.update(mask, model(img, training=False))
        # every rank scores the whole val split; summed counts keep the same ratios
        miou = counter.global_miou()
        if hvd.rank() == 0:
            print(f"epoch {epoch} loss {train_loss:.4f} val mIoU {miou:.4f} ({time.time() - tic:.0f}s)", flush=True)
            ckpt.epoch.assign(epoch + 1)
            manager.save()
    return os.path.abspath(cfg["ckpt_dir"])
