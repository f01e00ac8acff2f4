"""Land-cover segmentation of 64x64 tiles, custom TF2 loop with gradient accumulation
on Horovod. Re-running the command continues from the newest checkpoint in --ckpt-dir."""
import argparse

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from segtf.accum import GradientAccumulator
from segtf.ckpt import CheckpointHelper
from segtf.config import Config
from segtf.data import load_split, make_dataset
from segtf.model import small_unet

hvd.init()
for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--config")
    p.add_argument("--data")
    p.add_argument("--epochs", type=int)
    p.add_argument("--ckpt-dir", dest="ckpt_dir")
    a = p.parse_args()
    return Config.from_json(a.config, data=a.data, epochs=a.epochs, ckpt_dir=a.ckpt_dir)


def main():
    cfg = parse()
    (x_tr, y_tr), (x_va, y_va) = load_split(cfg.data)
    train_ds = make_dataset(x_tr, y_tr, cfg.micro_batch, hvd.size(), hvd.rank(), training=True)
    val_ds = make_dataset(x_va, y_va, 32, hvd.size(), hvd.rank(), training=False)
    steps_per_epoch = len(x_tr) // (cfg.micro_batch * cfg.accum_steps * hvd.size())

    model = small_unet(cfg.tile, x_tr.shape[-1], cfg.classes)
    opt = keras.optimizers.Adam(learning_rate=cfg.lr * hvd.size())
    opt.build(model.trainable_variables)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    accum = GradientAccumulator(model.trainable_variables)
    compression = hvd.Compression.fp16 if cfg.fp16_allreduce else hvd.Compression.none

    helper = CheckpointHelper(cfg.ckpt_dir, cfg.keep, model=model, optimizer=opt)
    start_epoch, restored = helper.restore_latest()
    # rank 0's weights and optimizer slots win, restored or freshly initialised
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(opt.variables, root_rank=0)
    if hvd.rank() == 0:
        print(f"workers={hvd.size()} start_epoch={start_epoch} restored={restored}", flush=True)

    @tf.function
    def micro_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        accum.add(tape.gradient(loss, model.trainable_variables))
        return loss

    @tf.function
    def apply_step():
        grads = accum.allreduced(cfg.accum_steps, compression)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        accum.reset()

    @tf.function
    def eval_step(x, y):
        pred = tf.argmax(model(x, training=False), axis=-1, output_type=tf.int32)
        inter = tf.math.bincount(tf.boolean_mask(y, pred == y), minlength=cfg.classes,
                                 maxlength=cfg.classes)
        area_p = tf.math.bincount(tf.reshape(pred, [-1]), minlength=cfg.classes, maxlength=cfg.classes)
        area_y = tf.math.bincount(tf.reshape(y, [-1]), minlength=cfg.classes, maxlength=cfg.classes)
        return tf.stack([inter, area_p, area_y])

    it = iter(train_ds)
    for epoch in range(start_epoch, cfg.epochs):
        losses = []
        for _ in range(steps_per_epoch):
            for _ in range(cfg.accum_steps):
                x, y = next(it)
                losses.append(micro_step(x, y))
            apply_step()
        counts = tf.zeros([3, cfg.classes], tf.int32)
        for x, y in val_ds:
            counts += eval_step(x, y)
        counts = hvd.allreduce(tf.cast(counts, tf.float64), op=hvd.Sum, name="iou_counts")
        iou = counts[0] / tf.maximum(counts[1] + counts[2] - counts[0], 1.0)
        mean_loss = hvd.allreduce(tf.reduce_mean(losses), name="train_loss")
        if hvd.rank() == 0:
            print(f"epoch {epoch + 1}/{cfg.epochs} loss {float(mean_loss):.4f} "
                  f"mIoU {float(tf.reduce_mean(iou)):.4f}", flush=True)
        helper.save(epoch + 1)


if __name__ == "__main__":
    main()
