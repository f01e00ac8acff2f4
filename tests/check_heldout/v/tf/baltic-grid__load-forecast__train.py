"""Day-ahead load forecasting: encoder pre-training, then supervised training with model.fit.

    mpirun -np 16 python train.py --config configs/prod.json
"""
import argparse
import os

import horovod.tensorflow.keras as hvd
import keras

from forecast import hvd_utils
from forecast.config import load_config
from forecast.model import Forecaster
from forecast.pretrain import pretrain_encoder
from forecast.windows import make_dataset


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=None)
    cfg = load_config(ap.parse_args().config)

    hvd.init()
    hvd_utils.pin_gpu()
    chief = hvd_utils.is_chief()

    per_rank_batch = cfg.global_batch_size // hvd.size()
    train_ds = make_dataset(cfg, "train", per_rank_batch, hvd.rank(), hvd.size(), training=True)
    val_ds = make_dataset(cfg, "val", per_rank_batch, hvd.rank(), hvd.size(), training=False)

    model = Forecaster(cfg.horizon)
    pretrain_encoder(model.encoder, train_ds, cfg, verbose=chief)

    lr = cfg.base_lr * hvd.size()
    opt = hvd.DistributedOptimizer(keras.optimizers.AdamW(learning_rate=lr, weight_decay=cfg.weight_decay))
    model.compile(optimizer=opt)

    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
                 hvd.callbacks.MetricAverageCallback()]
    if chief:
        os.makedirs(cfg.out_dir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(
            os.path.join(cfg.out_dir, "forecaster.weights.h5"), save_weights_only=True,
            monitor="val_mae", mode="min", save_best_only=True))

    model.fit(train_ds, epochs=cfg.epochs, steps_per_epoch=cfg.steps_per_epoch,
              validation_data=val_ds, validation_steps=cfg.val_steps,
              callbacks=callbacks, verbose=2 if chief else 0)

    if chief:
        model.save(os.path.join(cfg.out_dir, "forecaster.keras"))


if __name__ == "__main__":
    main()
