"""Plankton image classifier, trained in stages from configs/stages.yaml:
  head   - frozen backbone, new classification head
  top    - unfreeze the last backbone block
  full   - everything trainable, low lr

    horovodrun -np 4 python train.py --config configs/stages.yaml
"""
import argparse
import os

import keras
import horovod.tensorflow.keras as hvd

from pipeline import runtime
from pipeline.callbacks import build_callbacks
from pipeline.config import load_stages
from pipeline.data import make_dataset
from pipeline.models import build_classifier, set_trainable


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/stages.yaml")
    ap.add_argument("--verbose", type=int, default=1)
    args = ap.parse_args()

    runtime.setup()
    cfg = load_stages(args.config)

    train_ds, n_train = make_dataset(cfg["data"]["train"], cfg["batch_size"], training=True)
    val_ds, n_val = make_dataset(cfg["data"]["val"], cfg["batch_size"], training=False)
    steps = n_train // (cfg["batch_size"] * hvd.size())
    val_steps = max(1, n_val // (cfg["batch_size"] * hvd.size()))

    model = build_classifier(cfg["image_size"], cfg["num_classes"])
    epoch = 0
    for stage in cfg["stages"]:
        set_trainable(model, stage["trainable"])
        opt = keras.optimizers.Adam(learning_rate=stage["lr"])
        model.compile(optimizer=hvd.DistributedOptimizer(opt),
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
        model.fit(train_ds,
                  steps_per_epoch=steps,
                  validation_data=val_ds,
                  validation_steps=val_steps,
                  initial_epoch=epoch,
                  epochs=epoch + stage["epochs"],
                  callbacks=build_callbacks(stage, cfg["output_dir"], epoch),
                  verbose=args.verbose if hvd.rank() == 0 else 0)
        epoch += stage["epochs"]

    if hvd.rank() == 0:
        model.save(os.path.join(cfg["output_dir"], "final.keras"))


if __name__ == "__main__":
    main()
