import json
import os

# defaults copied from the first cell of the notebook
CFG = {
    "epochs": 6,
    "finetune_epochs": 2,
    "batch_size": 64,
    "lr": 0.01,
    "finetune_lr_mult": 0.1,
    "momentum": 0.9,
    "wd": 5e-4,
    "data_dir": os.path.expanduser("~/data/cifar10"),
    "save_every": 1,
    "num_workers": 2,
}


def load_json(path):
    if path and os.path.exists(path):
        with open(path) as f:
            CFG.update(json.load(f))
    return CFG
