import argparse

import keras
import horovod.tensorflow.keras as hvd

from xraycls.cfg import from_args
from xraycls.data import class_weights, count_files, xray_dataset
from xraycls.backbone import small_cnn
from xraycls.callbacks import make_callbacks


def cli():
    p = argparse.ArgumentParser("pneumonia classifier")
    p.add_argument("--image_dir")
    p.add_argument("--epochs", type=int)
    p.add_argument("--batch_size", type=int)
    p.add_argument("--lr", type=float)
    return p.parse_args()


if __name__ == "__main__":
    hvd.init()
    cfg = from_args(cli())

    n_train = count_files(cfg.image_dir, "train", cfg.classes)
    n_val = count_files(cfg.image_dir, "val", cfg.classes)
    steps_per_epoch = n_train // (cfg.batch_size * hvd.size())
    validation_steps = max(1, n_val // (cfg.batch_size * hvd.size()))

    train_ds = xray_dataset(cfg, "train", hvd.size(), hvd.rank(), training=True)
    val_ds = xray_dataset(cfg, "val", hvd.size(), hvd.rank(), training=False)

    model = small_cnn(cfg.img_size, len(cfg.classes))
    model.compile(
        optimizer=hvd.DistributedOptimizer(keras.optimizers.SGD(cfg.lr * hvd.size(), momentum=0.9)),
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy"],
    )
    model.fit(
        train_ds,
        epochs=cfg.epochs,
        steps_per_epoch=steps_per_epoch,
        validation_data=val_ds,
        validation_steps=validation_steps,
        class_weight=class_weights(cfg.image_dir, "train", cfg.classes),
        callbacks=make_callbacks(cfg, steps_per_epoch),
        verbose=2 if hvd.rank() == 0 else 0,
    )
