import json
import os

import torch
import horovod.torch as hvd


class Reporter:
    """Tune-style reporter: collects metrics, decides early stopping, keeps checkpoints."""

    def __init__(self, trial_dir, metric="val_loss", mode="min", patience=3):
        self.trial_dir = trial_dir
        self.metric = metric
        self.mode = mode
        self.patience = patience
        self.best = None
        self.bad_epochs = 0
        self.rows = []
        os.makedirs(trial_dir, exist_ok=True)

    def _better(self, value):
        if self.best is None:
            return True
        return value < self.best if self.mode == "min" else value > self.best

    def __call__(self, **metrics):
        self.rows.append(metrics)
        value = metrics[self.metric]
        if self._better(value):
            self.best, self.bad_epochs = value, 0
        else:
            self.bad_epochs += 1
        if hvd.rank() == 0:
            with open(os.path.join(self.trial_dir, "progress.jsonl"), "a") as f:
                f.write(json.dumps(metrics) + "\n")

    @property
    def should_stop(self):
        return self.bad_epochs >= self.patience

    def checkpoint(self, model, optimizer, epoch):
        path = os.path.join(self.trial_dir, "checkpoint.pt")
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "epoch": epoch}, path)
        return path
