import json
import os
import random

import numpy as np
import torch


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


def save(model, optimizer, epoch, metrics, out_dir, name="model_best.pth"):
    os.makedirs(out_dir, exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch},
               os.path.join(out_dir, name))
    with open(os.path.join(out_dir, "metrics.json"), "a") as f:
        f.write(json.dumps({"epoch": epoch, **metrics}) + "\n")
