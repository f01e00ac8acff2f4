"""Galaxy morphology classifier (Galaxy10 DECaLS), Keras + Horovod.

    horovodrun -np 4 python train.py --config configs/galaxy.json
"""
import argparse
import json

from tensorflow import keras
import horovod.tensorflow.keras as hvd

from galaxy.callbacks import make_callbacks
from galaxy.data import make_datasets
from galaxy.hvd_setup import setup_horovod
from galaxy.model import MorphNet


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/galaxy.json")
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--lr", type=float)
    return ap.parse_args()


def main():
    args = parse_args()
    with open(args.config) as f:
        cfg = json.load(f)
    for key in ("epochs", "lr"):
        if getattr(args, key) is not None:
            cfg[key] = getattr(args, key)

    rank, world = setup_horovod()
    train_ds, heldout_ds, steps = make_datasets(cfg, rank, world)

    model = MorphNet(num_classes=cfg["num_classes"])
    scaled_lr = cfg["lr"] * world
    nadam = keras.optimizers.Nadam(learning_rate=scaled_lr)
    model.compile(optimizer=nadam,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])

    model.fit(train_ds,
              steps_per_epoch=steps["train"],
              epochs=cfg["epochs"],
              validation_data=heldout_ds,
              validation_steps=steps["heldout"],
              callbacks=make_callbacks(cfg, scaled_lr, steps["train"]),
              verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
