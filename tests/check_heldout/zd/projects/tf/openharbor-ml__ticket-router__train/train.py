"""Train the support-ticket router.

Scheduled by the platform as an MPIJob: `python train.py --config /etc/router/config.json`.
"""
import argparse
import os

import keras
import horovod.tensorflow.keras as hvd

from router.config import RouterConfig
from router.data import input_fn, load_tokenized
from router.model import build_router
from router.optim import build_optimizer
from router.runtime import setup_runtime
from router.tracking import RunLogger


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=None)
    cfg = RouterConfig.load(ap.parse_args().config)
    rank, size = setup_runtime()

    (x_tr, y_tr), (x_va, y_va), n_queues = load_tokenized(cfg.data_path)
    train_ds = input_fn(x_tr, y_tr, cfg.batch_size, rank, size, training=True)
    val_ds = input_fn(x_va, y_va, cfg.batch_size, rank, size, training=False)

    model = build_router(cfg.vocab_size, cfg.embed_dim, n_queues, x_tr.shape[1])
    base_opt = build_optimizer(cfg)
    optimizer = hvd.DistributedOptimizer(base_opt)
    model.compile(optimizer=base_opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
    if rank == 0:
        os.makedirs(cfg.export_dir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg.export_dir, "router.keras"),
                                                         monitor="val_accuracy", save_best_only=True))
        callbacks.append(RunLogger(cfg.export_dir, {"workers": size, **vars(cfg)}))
    model.fit(train_ds, steps_per_epoch=len(x_tr) // (cfg.batch_size * size), epochs=cfg.epochs,
              validation_data=val_ds, callbacks=callbacks, verbose=2 if rank == 0 else 0)


if __name__ == "__main__":
    main()
