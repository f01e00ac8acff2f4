"""DDPM on 32x32 images, TF2 / Keras 3, horovod.tensorflow GradientTape loop.

    horovodrun -np 4 python train.py --data_dir data/celeba32 --epochs 100
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf
import horovod.tensorflow as hvd

from kddpm.config import parse_config
from kddpm.hvd_utils import setup_horovod, is_chief
from kddpm.data import build_train_ds
from kddpm.network import build_unet
from kddpm.trainer import DiffusionTrainer


def main():
    cfg = parse_config()
    setup_horovod()

    ds, steps_per_epoch = build_train_ds(cfg)
    model = build_unet(cfg.img_size, cfg.width)
    ema_model = build_unet(cfg.img_size, cfg.width)
    ema_model.set_weights(model.get_weights())

    lr = cfg.lr * hvd.size()
    schedule = tf.keras.optimizers.schedules.CosineDecay(lr, cfg.epochs * steps_per_epoch,
                                                         warmup_target=None)
    optimizer = tf.keras.optimizers.AdamW(learning_rate=schedule, weight_decay=cfg.wd)

    trainer = DiffusionTrainer(cfg, model, ema_model, optimizer)
    trainer.restore()

    for epoch in range(trainer.epoch, cfg.epochs):
        mean_loss = trainer.train_epoch(ds, steps_per_epoch)
        if is_chief():
            print(f"epoch {epoch + 1}/{cfg.epochs} loss {mean_loss:.5f}", flush=True)
        if (epoch + 1) % cfg.sample_every == 0:
            trainer.sample_and_log(epoch + 1)
        trainer.save(epoch + 1)


if __name__ == "__main__":
    main()
