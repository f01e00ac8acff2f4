"""Intent classification on MASSIVE (en-US), Keras 3 + Horovod.

    horovodrun -np 4 python train.py --config configs/massive_en.json
"""
import argparse

import horovod.tensorflow.keras as hvd

from intentk import config as config_lib
from intentk.data import make_dataset
from intentk.env import pin_gpu
from intentk.model import IntentClassifier
from intentk.training import make_callbacks, make_optimizer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/massive_en.json")
    args = ap.parse_args()
    cfg = config_lib.load(args.config)

    hvd.init()
    pin_gpu()

    train_ds, steps = make_dataset(cfg.data.train_files, cfg.data, hvd.rank(), hvd.size(), training=True)
    valid_ds, val_steps = make_dataset(cfg.data.valid_files, cfg.data, hvd.rank(), hvd.size(), training=False)

    model = IntentClassifier(cfg.data.vocab_size, cfg.data.num_intents, cfg.model.embed_dim,
                             cfg.model.hidden, cfg.model.dropout)
    model.compile(optimizer=make_optimizer(cfg.optim))
    model.fit(train_ds, steps_per_epoch=steps, epochs=cfg.train.epochs,
              validation_data=valid_ds, validation_steps=val_steps,
              callbacks=make_callbacks(cfg, steps), verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
