import json
import os

import torch


class BestTracker:
    def __init__(self, out_dir, mode="max"):
        self.out_dir = out_dir
        self.mode = mode
        self.best = None
        self.history = []

    def improved(self, value):
        if self.best is None:
            return True
        return value > self.best if self.mode == "max" else value < self.best

    def update(self, trial_name, value, model):
        self.history.append({"trial": trial_name, "value": value})
        if self.improved(value):
            self.best = value
            os.makedirs(self.out_dir, exist_ok=True)
            torch.save(model.state_dict(), os.path.join(self.out_dir, "best.pt"))
            return True
        return False


def write_trial(out_dir, name, payload):
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, f"{name}.json"), "w") as f:
        json.dump(payload, f, indent=2)
