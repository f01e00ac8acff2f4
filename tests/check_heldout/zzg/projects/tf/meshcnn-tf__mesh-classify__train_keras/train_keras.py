"""Mesh classification (SHREC-16) with a face-neighbourhood CNN, Horovod data parallel.

Run: horovodrun -np 4 python train_keras.py [--epochs 200]
"""
import argparse

import horovod.tensorflow.keras as hvd

from config import CFG
from meshcls import hvd_setup
from meshcls.data import load_split, to_dataset
from meshcls.model import build_model
from meshcls.training import callbacks_for, compile_for_training


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=CFG["epochs"])
    parser.add_argument("--dataset-dir", default=CFG["dataset_dir"])
    args = parser.parse_args()
    cfg = dict(CFG, epochs=args.epochs, dataset_dir=args.dataset_dir)

    is_chief = hvd_setup.init()
    x_train, y_train = load_split(cfg, "train")
    x_test, y_test = load_split(cfg, "test")
    bs = cfg["batch_size"]
    train_ds = to_dataset(x_train, y_train, bs, hvd.size(), hvd.rank(), train=True)
    test_ds = to_dataset(x_test, y_test, bs, hvd.size(), hvd.rank(), train=False)

    model = compile_for_training(build_model(cfg), cfg)
    model.fit(train_ds,
              steps_per_epoch=len(y_train) // (bs * hvd.size()),
              validation_data=test_ds,
              validation_steps=max(1, len(y_test) // (bs * hvd.size())),
              epochs=cfg["epochs"],
              callbacks=callbacks_for(cfg, is_chief),
              verbose=1 if is_chief else 0)


if __name__ == "__main__":
    main()
