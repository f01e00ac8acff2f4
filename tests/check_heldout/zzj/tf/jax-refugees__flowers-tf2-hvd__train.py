"""tf_flowers classifier, rewritten from our JAX/pmap version to TF2 + Horovod.

    horovodrun -np 4 python train.py --epochs 20
"""
import argparse
import dataclasses

import keras

from flowers.runtime import init_horovod
from flowers.config import Config
from flowers.data import split_files, make_ds
from flowers.trainer import Trainer


def build_model(num_classes, image_size):
    inputs = keras.Input((image_size, image_size, 3))
    x = inputs
    for filters in (32, 64, 128, 256):
        x = keras.layers.Conv2D(filters, 3, padding='same', activation='relu')(x)
        x = keras.layers.BatchNormalization()(x)
        x = keras.layers.MaxPooling2D()(x)
    x = keras.layers.GlobalAveragePooling2D()(x)
    x = keras.layers.Dropout(0.3)(x)
    return keras.Model(inputs, keras.layers.Dense(num_classes)(x))


def main():
    ap = argparse.ArgumentParser()
    for f in dataclasses.fields(Config):
        ap.add_argument('--' + f.name.replace('_', '-'), type=f.type, default=f.default)
    overrides = vars(ap.parse_args())

    rank, size = init_horovod()
    cfg = Config(**overrides)

    (tr_files, tr_labels), (va_files, va_labels), classes = split_files(cfg)
    steps_per_epoch = len(tr_files) // (cfg.batch_size * size)
    train_ds = make_ds(cfg, tr_files, tr_labels, rank, size, training=True)
    val_ds = make_ds(cfg, va_files, va_labels, rank, size, training=False)

    model = build_model(len(classes), cfg.image_size)
    trainer = Trainer(cfg, model, steps_per_epoch)

    it = iter(train_ds)
    for epoch in range(cfg.epochs):
        for step in range(steps_per_epoch):
            x, y = next(it)
            loss = trainer.train_step(x, y, epoch == 0 and step == 0)
        acc = trainer.evaluate(val_ds)
        if rank == 0:
            print(f'epoch {epoch + 1}/{cfg.epochs}  loss {float(loss):.4f}  val_acc {acc:.4f}', flush=True)
        trainer.save(epoch)


if __name__ == '__main__':
    main()
