import json
import os
import time

import torch
import horovod.torch as hvd

HOOKS = {}


def register_hook(name):
    def deco(cls):
        HOOKS[name] = cls
        return cls
    return deco


def build_hooks(names, work_dir):
    return [HOOKS[n.strip()](work_dir) for n in names.split(",") if n.strip()]


class Hook:
    def __init__(self, work_dir):
        self.work_dir = work_dir

    def after_epoch(self, trainer, epoch, metrics):
        pass


@register_hook("checkpoint")
class CheckpointHook(Hook):
    def after_epoch(self, trainer, epoch, metrics):
        if hvd.rank() != 0:
            return
        os.makedirs(self.work_dir, exist_ok=True)
        torch.save({"model": trainer.model.state_dict(), "optimizer": trainer.optimizer.state_dict(),
                    "epoch": epoch}, os.path.join(self.work_dir, f"epoch_{epoch:04d}.pth"))


@register_hook("metrics")
class MetricsHook(Hook):
    def after_epoch(self, trainer, epoch, metrics):
        if hvd.rank() == 0:
            os.makedirs(self.work_dir, exist_ok=True)
            with open(os.path.join(self.work_dir, "metrics.jsonl"), "a") as f:
                f.write(json.dumps({"epoch": epoch, "time": time.time(), **metrics}) + "\n")
