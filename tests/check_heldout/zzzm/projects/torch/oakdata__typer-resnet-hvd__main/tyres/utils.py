import os
import random
import shutil

import numpy as np
import torch
import horovod.torch as hvd


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def save_checkpoint(out_dir, model, optimizer, epoch, metrics, is_best=False):
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "checkpoint.pth.tar")
    torch.save({"epoch": epoch, "state_dict": model.state_dict(),
                "optimizer": optimizer.state_dict(), "metrics": metrics}, path)
    if is_best:
        shutil.copyfile(path, os.path.join(out_dir, "model_best.pth.tar"))
    if hvd.rank() == 0:
        print(f"saved {path} (epoch {epoch}, best={is_best})")
