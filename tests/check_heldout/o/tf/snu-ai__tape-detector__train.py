"""CenterNet-tiny on VOC, custom GradientTape loop, Horovod.

    horovodrun -np 4 python tools/train.py --data /data/voc_centernet --batch-size 16
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from det.model import centernet_tiny
from det.data import make_dataset
from det.losses import detection_loss
from utils import AverageMeter, configure_gpus, set_seed


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="/data/voc_centernet")
    p.add_argument("--num-classes", type=int, default=20)
    p.add_argument("--input-size", type=int, default=256)
    p.add_argument("--width", type=int, default=32)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--epochs", type=int, default=70)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--warmup-steps", type=int, default=300)
    p.add_argument("--val-every", type=int, default=5)
    p.add_argument("--ckpt-dir", default="./ckpt")
    p.add_argument("--seed", type=int, default=2024)
    return p.parse_args()


def main():
    args = parse_args()
    set_seed(args.seed)
    configure_gpus()
    hvd.init()

    train_ds, n_train = make_dataset(args.data, "train", args.batch_size, hvd.size(), hvd.rank())
    val_ds, _ = make_dataset(args.data, "val", args.batch_size, hvd.size(), hvd.rank(), training=False)
    steps_per_epoch = n_train // (args.batch_size * hvd.size())

    model = centernet_tiny(args.num_classes, args.width, args.input_size)
    peak_lr = args.lr * hvd.size()
    total = steps_per_epoch * args.epochs
    schedule = keras.optimizers.schedules.CosineDecay(0.0, total - args.warmup_steps, alpha=0.01,
                                                      warmup_target=peak_lr, warmup_steps=args.warmup_steps)
    optimizer = keras.optimizers.Adam(learning_rate=schedule)

    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
    manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=3)

    @tf.function
    def train_step(images, targets, first_batch):
        with tf.GradientTape() as tape:
            outputs = model(images, training=True)
            loss, parts = detection_loss(targets, outputs)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        return loss, parts

    @tf.function
    def val_step(images, targets):
        loss, _ = detection_loss(targets, model(images, training=False))
        return loss

    it = iter(train_ds)
    meter = AverageMeter()
    for epoch in range(args.epochs):
        meter.reset()
        for step in range(steps_per_epoch):
            images, targets = next(it)
            loss, (l_heat, l_wh, l_off) = train_step(images, targets, epoch == 0 and step == 0)
            meter.update(loss.numpy())
            if step % 100 == 0 and hvd.rank() == 0:
                print(f"epoch {epoch} step {step}/{steps_per_epoch} loss {meter.avg:.4f} "
                      f"heat {l_heat:.4f} wh {l_wh:.4f} off {l_off:.4f} ({meter.rate() * args.batch_size:.1f} img/s)")
        if (epoch + 1) % args.val_every == 0:
            vloss = tf.reduce_mean([val_step(x, y) for x, y in val_ds])
            vloss = hvd.allreduce(vloss, average=True, name="val_loss")
            if hvd.rank() == 0:
                print(f"epoch {epoch}: val loss {float(vloss):.4f}")
                manager.save(checkpoint_number=epoch + 1)


if __name__ == "__main__":
    main()
