import json
import os
import time

import torch


class Tracker:
    """Minimal run tracker: metrics.jsonl + last.pt in out_dir. Inactive trackers do nothing."""

    def __init__(self, out_dir, active=True):
        self.out_dir = out_dir
        self.active = active
        self.ckpt_path = os.path.join(out_dir, "last.pt")
        if active:
            os.makedirs(out_dir, exist_ok=True)

    def log(self, epoch, **metrics):
        if not self.active:
            return
        rec = {"epoch": epoch, "time": time.time(), **metrics}
        print(json.dumps(rec), flush=True)
        with open(os.path.join(self.out_dir, "metrics.jsonl"), "a") as fh:
            fh.write(json.dumps(rec) + "\n")

    def checkpoint(self, model, opt, next_epoch):
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": next_epoch},
                   self.ckpt_path)

    def restore(self, model, opt):
        ck = torch.load(self.ckpt_path, map_location="cpu")
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        return ck["epoch"]
