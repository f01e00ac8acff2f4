"""EuroSAT tile classification, Keras 3 + Horovod.

    horovodrun -np 4 python train_keras.py --config configs/eurosat.json
"""
import argparse
import os

import horovod.tensorflow.keras as hvd
import keras
import tensorflow as tf

from sattiles import ExperimentConfig
from sattiles.backbones import build_model
from sattiles.callbacks import build_callbacks
from sattiles.data import make_datasets


def configure_devices():
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default=None)
    parser.add_argument("--epochs", type=int, default=None)
    args = parser.parse_args(argv)

    hvd.init()
    configure_devices()
    cfg = ExperimentConfig.from_json(args.config)
    if args.epochs:
        cfg.epochs = args.epochs
    if cfg.mixed_precision:
        keras.mixed_precision.set_global_policy("mixed_float16")
    keras.utils.set_random_seed(1337)

    train_ds, val_ds, steps, val_steps, input_shape = make_datasets(cfg.data, hvd.size(), hvd.rank())
    model = build_model(cfg.model, input_shape)

    scaled_lr = cfg.optim.lr * hvd.size()
    opt = keras.optimizers.AdamW(learning_rate=scaled_lr, weight_decay=cfg.optim.weight_decay,
                                 use_ema=True, ema_momentum=cfg.optim.ema_momentum)
    opt = hvd.DistributedOptimizer(opt)
    model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

    run_dir = os.path.join(cfg.out_dir, cfg.name)
    callbacks = build_callbacks(cfg, scaled_lr, steps, run_dir)
    model.fit(train_ds, steps_per_epoch=steps, epochs=cfg.epochs, validation_data=val_ds,
              validation_steps=val_steps, callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        # copy the EMA weights into the model before exporting
        model.optimizer.finalize_variable_values(model.trainable_variables)
        model.save(os.path.join(run_dir, "final_ema.keras"))


if __name__ == "__main__":
    main()
