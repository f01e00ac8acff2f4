"""AutoML trial worker: trains one tabular MLP configuration across the trial's Horovod ranks.

The scheduler starts it as `horovodrun -np $SLOTS python worker.py`; trial settings are in
conf/worker.yaml (written by the scheduler) plus NIMBUS_TRIAL_* overrides.
"""
import json

import numpy as np
import torch
import horovod.torch as hvd

from automl import hvd_utils
from automl.settings import load_settings
from automl.trainer import Trainer


def main():
    device = hvd_utils.init_worker()
    settings = load_settings()
    blob = np.load(settings.dataset)
    x_train = torch.tensor(blob["x_train"], dtype=torch.float32)
    y_train = torch.tensor(blob["y_train"], dtype=torch.long)
    idx = hvd_utils.rank_indices(len(x_train), seed=2024)
    x_train, y_train = x_train[idx], y_train[idx]

    trainer = Trainer(settings, x_train.shape[1], int(blob["n_classes"]), device)
    best, patience_left = float("inf"), settings.train.early_stop_patience
    for epoch in range(trainer.start_epoch, settings.train.epochs):
        trainer.fit_epoch(x_train, y_train, epoch)
        stop = False
        if hvd.rank() == 0:
            metrics = trainer.score(torch.tensor(blob["x_val"], dtype=torch.float32),
                                    torch.tensor(blob["y_val"], dtype=torch.long))
            print(json.dumps({"trial": settings.name, "epoch": epoch, **metrics}), flush=True)
            trainer.save(epoch, metrics)
            if metrics["val_loss"] < best:
                best, patience_left = metrics["val_loss"], settings.train.early_stop_patience
            else:
                patience_left -= 1
            stop = patience_left <= 0
        if hvd.broadcast_object(stop, root_rank=0, name="early_stop"):
            break


if __name__ == "__main__":
    main()
