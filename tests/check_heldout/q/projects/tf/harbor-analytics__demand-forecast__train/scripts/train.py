"""Train a demand-forecasting model with Horovod + Keras.

    horovodrun -np 4 python scripts/train.py --model tcn_small --epochs 60
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

import horovod.tensorflow.keras as hvd  # noqa: E402
import keras  # noqa: E402

from hfc import runtime  # noqa: E402
from hfc.callbacks import build_callbacks  # noqa: E402
from hfc.config import from_overrides  # noqa: E402
from hfc.data import make_windows, to_dataset  # noqa: E402
from hfc.models import build_model  # noqa: E402


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-path")
    ap.add_argument("--output-dir")
    ap.add_argument("--model")
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--batch-size", type=int)
    return from_overrides(**vars(ap.parse_args()))


def main():
    cfg = parse()
    world, rank = runtime.setup()
    keras.utils.set_random_seed(cfg.seed)

    (x_tr, y_tr), (x_va, y_va) = make_windows(cfg.data_path, cfg.lookback, cfg.horizon, cfg.val_fraction)
    train_ds = to_dataset((x_tr, y_tr), cfg.batch_size, world, rank, training=True, seed=cfg.seed)
    val_ds = to_dataset((x_va, y_va), cfg.batch_size, world, rank, training=False)
    steps_per_epoch = len(x_tr) // (cfg.batch_size * world)
    val_steps = max(1, len(x_va) // (cfg.batch_size * world))

    scaled_lr = cfg.base_lr * world
    model = build_model(cfg.model, lookback=cfg.lookback, horizon=cfg.horizon)
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
    model.compile(optimizer=opt, loss="mse", metrics=["mae"])

    model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=cfg.epochs,
              validation_data=val_ds, validation_steps=val_steps,
              callbacks=build_callbacks(cfg, scaled_lr, steps_per_epoch),
              verbose=2 if rank == 0 else 0)
    if rank == 0:
        model.save(os.path.join(cfg.output_dir, "final.keras"))


if __name__ == "__main__":
    main()
