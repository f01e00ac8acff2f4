"""Curriculum learning by difficulty stages (easy -> full data) with Keras + Horovod."""
import argparse
import os
import sys

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from curriculum import TrainConfig
from curriculum.data import load, make_train, make_val
from curriculum.scoring import difficulty, stage_indices
from curriculum.stages import compile_stage, stage_callbacks


def build_model(image_size, n_classes):
    base = keras.applications.MobileNetV2(input_shape=(image_size, image_size, 3),
                                          include_top=False, weights=None, alpha=0.5)
    x = keras.layers.GlobalAveragePooling2D()(base.output)
    out = keras.layers.Dense(n_classes)(x)
    return keras.Model(base.input, out)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", help="json file overriding TrainConfig fields")
    ns = ap.parse_args(argv)
    cfg = TrainConfig.from_json(ns.config) if ns.config else TrainConfig()

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    verbose = 1 if hvd.rank() == 0 else 0
    if hvd.rank() == 0:
        os.makedirs(cfg.out_dir, exist_ok=True)
        print(cfg.dump())

    x_tr, y_tr, x_te, y_te = load(cfg)
    order = np.argsort(difficulty(x_tr, y_tr), kind="stable")
    model = build_model(cfg.image_size, int(y_tr.max()) + 1)
    lr = cfg.scaled_lr(hvd.size()) * hvd.size()

    val = make_val(x_te, y_te)
    for stage, (frac, epochs) in enumerate(zip(cfg.stage_fracs, cfg.stage_epochs)):
        idx = stage_indices(order, frac)
        train = make_train(x_tr, y_tr, idx, cfg.batch_size, hvd.rank(), hvd.size(), seed=stage)
        compile_stage(model, cfg, stage, lr)
        model.fit(train, epochs=epochs,
                  steps_per_epoch=len(idx) // (cfg.batch_size * hvd.size()),
                  validation_data=val, callbacks=stage_callbacks(cfg, stage), verbose=verbose)
        if hvd.rank() == 0:
            print(f"stage {stage}: {len(idx)} samples ({frac:.0%} easiest)", file=sys.stderr)

    loss, acc = model.evaluate(val, verbose=0)
    if hvd.rank() == 0:
        print(f"final test accuracy {acc:.4f}")


if __name__ == "__main__":
    main()
