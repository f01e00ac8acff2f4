#!/usr/bin/env python3
"""Land-cover segmentation: U-Net decoder on an ImageNet MobileNetV2 encoder.

Encoder weights are read from disk (compute nodes have no internet). Stage A trains the
decoder with the encoder frozen, stage B fine-tunes everything at a reduced lr.
"""
import os

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from lcft.config import Config
from lcft.data import tile_dataset
from lcft.losses import dice_ce_loss, MeanIoUFromLogits
from lcft.unet import build_unet, set_encoder_trainable


def pin_gpu():
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def compile_model(model, lr):
    model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.AdamW(lr, weight_decay=1e-4)),
                  loss=dice_ce_loss,
                  metrics=[MeanIoUFromLogits(num_classes=model.output_shape[-1])])


def callbacks(cfg):
    cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
           hvd.callbacks.MetricAverageCallback(),
           keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=2)]
    if hvd.rank() == 0:
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg.ckpt_dir, "stage_best.weights.h5"),
                                                   save_weights_only=True, save_best_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(cfg.ckpt_dir, "history.csv"), append=True))
    return cbs


def main():
    cfg = Config.from_cli()
    hvd.init()
    pin_gpu()
    if hvd.rank() == 0:
        os.makedirs(cfg.ckpt_dir, exist_ok=True)
        print(cfg)

    train_ds, n_train = tile_dataset(cfg.data_dir, "train", cfg.batch_size, hvd.size(), hvd.rank())
    val_ds, _ = tile_dataset(cfg.data_dir, "val", cfg.batch_size, hvd.size(), hvd.rank())
    steps = n_train // (cfg.batch_size * hvd.size())

    model = build_unet(cfg.num_classes, cfg.tile, cfg.encoder_weights)
    set_encoder_trainable(model, False)
    compile_model(model, cfg.lr)
    model.fit(train_ds, validation_data=val_ds, epochs=cfg.stage_a_epochs, steps_per_epoch=steps,
              callbacks=callbacks(cfg), verbose=1 if hvd.rank() == 0 else 0)

    set_encoder_trainable(model, True)
    compile_model(model, cfg.lr * cfg.stage_b_lr_mult)
    model.fit(train_ds, validation_data=val_ds, epochs=cfg.stage_a_epochs + cfg.stage_b_epochs,
              initial_epoch=cfg.stage_a_epochs, steps_per_epoch=steps,
              callbacks=callbacks(cfg), verbose=1 if hvd.rank() == 0 else 0)

    os.makedirs(cfg.export_dir, exist_ok=True)
    model.save(os.path.join(cfg.export_dir, "landcover_unet.keras"))


if __name__ == "__main__":
    main()
