"""Land-cover U-Net, TF2 custom loop + Horovod.

    horovodrun -np 4 python train.py --data-dir data/landcover --epochs 40
"""
import argparse
import math
import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from segtf.config import TrainConfig
from segtf.data import make_dataset
from segtf.model import build_unet
from segtf.trainer import SegTrainer


def parse_args():
    cfg = TrainConfig()
    p = argparse.ArgumentParser()
    p.add_argument("--data-dir", default=cfg.data_dir)
    p.add_argument("--epochs", type=int, default=cfg.epochs)
    p.add_argument("--batch-size", type=int, default=cfg.batch_size)
    p.add_argument("--lr", type=float, default=cfg.lr)
    p.add_argument("--ckpt-dir", default=cfg.ckpt_dir)
    p.add_argument("--resume", action="store_true", help="continue from the latest checkpoint in --ckpt-dir")
    args = p.parse_args()
    for k, v in vars(args).items():
        if hasattr(cfg, k):
            setattr(cfg, k, v)
    return cfg, args


def main():
    cfg, args = parse_args()
    hvd.init()
    for gpu in tf.config.experimental.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)

    train_ds, n_train = make_dataset(cfg.data_dir, "train", cfg.image_size, cfg.batch_size, hvd.size(), hvd.rank(),
                                     cfg.shuffle_buffer, training=True)
    val_ds, _ = make_dataset(cfg.data_dir, "val", cfg.image_size, cfg.batch_size, hvd.size(), hvd.rank())
    steps_per_epoch = n_train // (cfg.batch_size * hvd.size())

    model = build_unet(cfg.image_size, cfg.num_classes)
    peak_lr = cfg.lr * hvd.size()
    schedule = keras.optimizers.schedules.CosineDecay(
        initial_learning_rate=peak_lr / 10, decay_steps=steps_per_epoch * (cfg.epochs - cfg.warmup_epochs),
        warmup_target=peak_lr, warmup_steps=steps_per_epoch * cfg.warmup_epochs,
    )
    optimizer = keras.optimizers.Adam(learning_rate=schedule)
    trainer = SegTrainer(model, optimizer, cfg.num_classes)

    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, epoch=tf.Variable(0))
    manager = tf.train.CheckpointManager(ckpt, cfg.ckpt_dir, max_to_keep=cfg.max_to_keep)
    if args.resume and manager.latest_checkpoint:
        ckpt.restore(manager.latest_checkpoint)
        if hvd.rank() == 0:
            print(f"restored {manager.latest_checkpoint} (epoch {int(ckpt.epoch)})")

    it = iter(train_ds)
    first = True
    for epoch in range(int(ckpt.epoch), cfg.epochs):
        t0 = time.time()
        for step in range(steps_per_epoch):
            images, masks = next(it)
            loss = trainer.train_step(images, masks, first)
            first = False
            if hvd.rank() == 0 and step % cfg.log_every == 0:
                print(f"epoch {epoch} step {step}/{steps_per_epoch} loss {float(loss):.4f}")
        miou = trainer.evaluate(val_ds)
        ckpt.epoch.assign(epoch + 1)
        manager.save(checkpoint_number=epoch + 1)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: val mIoU {miou:.4f} ({time.time() - t0:.0f}s)")


if __name__ == "__main__":
    main()
