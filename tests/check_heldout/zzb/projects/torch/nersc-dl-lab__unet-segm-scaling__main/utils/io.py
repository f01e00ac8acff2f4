import json
import os
import time

import torch


class RunDir:
    """runs/<name>/ holds the shared checkpoint; runs/<name>/rank_<r>/ holds per-rank step logs."""

    def __init__(self, root, name, rank):
        self.rank = rank
        self.path = os.path.join(root, name)
        self.rank_path = os.path.join(self.path, f"rank_{rank:03d}")
        os.makedirs(self.rank_path, exist_ok=True)
        self._steps = open(os.path.join(self.rank_path, "steps.jsonl"), "a")

    def log_step(self, epoch, step, loss):
        self._steps.write(json.dumps({"t": time.time(), "epoch": epoch, "step": step,
                                      "loss": round(loss, 6)}) + "\n")

    def print(self, msg):
        if self.rank == 0:
            print(msg, flush=True)

    def save(self, state, name):
        if self.rank != 0:
            return
        tmp = os.path.join(self.path, name + ".tmp")
        torch.save(state, tmp)
        os.replace(tmp, os.path.join(self.path, name))

    def close(self):
        self._steps.close()
