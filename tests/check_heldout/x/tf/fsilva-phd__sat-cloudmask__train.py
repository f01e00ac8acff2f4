"""Cloud masks for Sentinel-2 patches (PhD, F. Silva). Keras 3 + horovod.tensorflow.keras.

    horovodrun -np 4 python train.py                       # configs/default.yaml
    horovodrun -np 4 python train.py train.epochs=60 model.width=48
"""
import json
import os
import sys

import horovod.tensorflow.keras as hvd
import keras
import tensorflow as tf

from cloudmask.callbacks import build_callbacks
from cloudmask.config import load_config
from cloudmask.data import load_patches, rank_slice
from cloudmask.evaluate import evaluate_full
from cloudmask.model import build_fcn


def main(overrides):
    cfg = load_config("configs/default.yaml", overrides)
    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    keras.utils.set_random_seed(cfg["seed"])

    (x_tr, y_tr), (x_va, y_va), _ = load_patches(cfg["data"]["path"])
    x_tr, y_tr = rank_slice(x_tr, y_tr, hvd.rank(), hvd.size())
    x_va, y_va = rank_slice(x_va, y_va, hvd.rank(), hvd.size())
    tcfg = cfg["train"]
    steps_per_epoch = -(-len(x_tr) // tcfg["batch_size"])

    model = build_fcn(x_tr.shape[-1], width=cfg["model"]["width"])
    scaled_lr = tcfg["lr"] * hvd.size()
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
    model.compile(optimizer=opt, loss="binary_crossentropy", metrics=["binary_accuracy"])

    out_dir = cfg["out_dir"]
    initial_epoch = 0
    state_file = os.path.join(out_dir, "state.json")
    if os.path.exists(state_file):          # resume: every worker reads the same files
        with open(state_file) as f:
            initial_epoch = json.load(f)["epoch"] + 1
        model.load_weights(os.path.join(out_dir, "last.weights.h5"))

    callbacks = build_callbacks(cfg, scaled_lr, steps_per_epoch, is_chief=hvd.rank() == 0)
    model.fit(x_tr, y_tr, batch_size=tcfg["batch_size"], epochs=tcfg["epochs"], initial_epoch=initial_epoch,
              validation_data=(x_va, y_va), callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        # the test split is small: rank 0 alone scores all of it
        print("test:", evaluate_full(model, cfg["data"]["path"]))


if __name__ == "__main__":
    main(sys.argv[1:])
