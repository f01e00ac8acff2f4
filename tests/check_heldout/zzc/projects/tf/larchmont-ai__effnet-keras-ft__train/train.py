"""Two-stage transfer learning with Keras 3 + Horovod.

Stage 1 trains a new classification head on a frozen EfficientNetB0 (ImageNet weights
loaded from a local .weights.h5 file); stage 2 unfreezes the top of the backbone and
fine-tunes with a smaller learning rate.

    horovodrun -np 4 python train.py --data-dir /data/food101_npz
"""
import argparse

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from kft.callbacks import make_callbacks
from kft.config import TrainConfig
from kft.data import load_split, make_dataset
from kft.model import build_classifier, unfreeze_top


def parse_args():
    cfg = TrainConfig()
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default=cfg.data_dir)
    ap.add_argument("--weights", default=cfg.backbone_weights)
    ap.add_argument("--head-epochs", type=int, default=cfg.head_epochs)
    ap.add_argument("--ft-epochs", type=int, default=cfg.ft_epochs)
    ap.add_argument("--batch-size", type=int, default=cfg.batch_size)
    return _merge(cfg, ap.parse_args())


def _merge(cfg, ns):
    cfg.data_dir, cfg.backbone_weights = ns.data_dir, ns.weights
    cfg.head_epochs, cfg.ft_epochs, cfg.batch_size = ns.head_epochs, ns.ft_epochs, ns.batch_size
    return cfg


def compile_stage(model, lr):
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=lr))
    model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])


def main():
    cfg = parse_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    x_tr, y_tr = load_split(cfg.data_dir, "train")
    x_va, y_va = load_split(cfg.data_dir, "val")
    train_ds = make_dataset(x_tr, y_tr, cfg.batch_size, training=True,
                            num_shards=hvd.size(), index=hvd.rank())
    val_ds = make_dataset(x_va, y_va, cfg.batch_size, training=False)
    steps = len(x_tr) // (cfg.batch_size * hvd.size())

    model = build_classifier(cfg.num_classes, cfg.image_size, cfg.backbone_weights)

    # stage 1: head only
    compile_stage(model, cfg.head_lr * hvd.size())
    model.fit(train_ds, epochs=cfg.head_epochs, steps_per_epoch=steps, validation_data=val_ds,
              callbacks=make_callbacks(cfg, stage=1, warmup_lr=cfg.head_lr * hvd.size(),
                                       steps=steps),
              verbose=2 if hvd.rank() == 0 else 0)

    # stage 2: unfreeze the last blocks, keep BatchNorm frozen
    unfreeze_top(model, cfg.unfreeze_from)
    compile_stage(model, cfg.ft_lr * hvd.size())
    model.fit(train_ds, initial_epoch=cfg.head_epochs, epochs=cfg.head_epochs + cfg.ft_epochs,
              steps_per_epoch=steps, validation_data=val_ds,
              callbacks=make_callbacks(cfg, stage=2), verbose=2 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        model.save(cfg.export_path)
        print("exported", cfg.export_path)


if __name__ == "__main__":
    main()
