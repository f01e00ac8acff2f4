"""RotNet pretext training (Gidaris et al. 2018): predict which of 4 rotations was applied.

Keras 3 fit() + horovod.tensorflow.keras. Example:
    horovodrun -np 4 python train_rotnet.py --data /data/cifar100_unlabeled.npz --epochs 60
"""
import argparse
import os

import keras
import horovod.tensorflow.keras as hvd

from rotnet.config import RotNetConfig
from rotnet.data import load_rotation_data
from rotnet.hvd_utils import make_callbacks, setup_gpus
from rotnet.model import build_rotnet, feature_extractor


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--batch-size", type=int)
    ap.add_argument("--base-lr", type=float)
    ap.add_argument("--out", type=str)
    return ap.parse_args()


def run(cfg: RotNetConfig):
    hvd.init()
    setup_gpus()

    (x_tr, y_tr), (x_va, y_va) = load_rotation_data(cfg.data, hvd.rank(), hvd.size(), seed=cfg.seed)
    model = build_rotnet(x_tr.shape[1:], width=cfg.width)

    opt = keras.optimizers.SGD(learning_rate=cfg.base_lr * hvd.size(), momentum=0.9, nesterov=True)
    opt = hvd.DistributedOptimizer(opt)
    model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

    steps_per_epoch = len(x_tr) // cfg.batch_size
    model.fit(x_tr, y_tr, batch_size=cfg.batch_size, epochs=cfg.epochs, steps_per_epoch=steps_per_epoch,
              validation_data=(x_va, y_va), callbacks=make_callbacks(cfg, steps_per_epoch),
              verbose=2 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        path = os.path.join(cfg.out, "features.keras")
        feature_extractor(model).save(path)
        print("saved trunk to", path)
    return model


if __name__ == "__main__":
    run(RotNetConfig.from_namespace(parse()))
