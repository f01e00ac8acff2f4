"""Return-direction classification with a TabNet-style model.

    horovodrun -np 4 python train.py --panel data/panel.parquet
"""
import argparse
import os

import keras

from common.hvd_utils import hvd, init_and_pin, is_chief
from tabular.dataset import TabularData
from tabular.tabnet import build_tabnet


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--panel", default="data/panel.parquet")
    ap.add_argument("--batch-size", type=int, default=1024)
    ap.add_argument("--epochs", type=int, default=50)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--run-dir", default="runs/tabnet")
    return ap.parse_args()


def make_schedule(lr, warmup):
    return [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=warmup),
        keras.callbacks.ReduceLROnPlateau(patience=5, factor=0.3, verbose=int(is_chief())),
    ]


def main():
    args = get_args()
    init_and_pin()

    panel = TabularData(args.panel)
    train_ds = panel.train(args.batch_size, hvd.size(), hvd.rank())
    probe_ds = panel.probe(4096)

    model = build_tabnet(panel.num_features)
    lr = args.lr * hvd.size()
    solver = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=lr))
    model.compile(optimizer=solver,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy", keras.metrics.AUC(from_logits=True, name="auc")])

    hooks = make_schedule(lr, args.warmup)
    if is_chief():
        os.makedirs(args.run_dir, exist_ok=True)
        hooks += [keras.callbacks.ModelCheckpoint(os.path.join(args.run_dir, "tabnet.keras"),
                                                  monitor="val_auc", mode="max", save_best_only=True),
                  keras.callbacks.CSVLogger(os.path.join(args.run_dir, "history.csv"))]

    model.fit(train_ds,
              steps_per_epoch=panel.steps_per_epoch(args.batch_size, hvd.size()),
              validation_data=probe_ds,
              epochs=args.epochs,
              callbacks=hooks,
              verbose=2 if is_chief() else 0)


if __name__ == "__main__":
    main()
