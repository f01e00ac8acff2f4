"""cellseg multi-GPU training (pip install -e . in the training image).

    horovodrun -np 8 python tools/train.py --epochs 120
"""
import horovod.tensorflow.keras as hvd
import tensorflow as tf

from cellseg.data import build_dataset
from cellseg.model import CellUNet, bce_dice_loss
from cellseg.settings import Settings
from cellseg.training import build_optimizer, default_callbacks


def main():
    cfg = Settings.from_cli()
    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_ds, n_train = build_dataset(cfg.train_npz, cfg.batch_size, hvd.size(), hvd.rank(), training=True)
    val_ds, n_val = build_dataset(cfg.val_npz, cfg.batch_size, hvd.size(), hvd.rank(), training=False)
    steps = n_train // (cfg.batch_size * hvd.size())
    val_steps = max(1, n_val // (cfg.batch_size * hvd.size()))

    model = CellUNet(cfg.base_filters)
    model.compile(optimizer=build_optimizer(cfg), loss=bce_dice_loss, metrics=["binary_accuracy"])
    model.fit(train_ds, epochs=cfg.epochs, steps_per_epoch=steps, validation_data=val_ds,
              validation_steps=val_steps, callbacks=default_callbacks(cfg, steps),
              verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
