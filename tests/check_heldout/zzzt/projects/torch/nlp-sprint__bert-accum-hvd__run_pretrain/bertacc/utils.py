import os
import random

import numpy as np
import torch
import horovod.torch as hvd


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def setup_device():
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda")
    return torch.device("cpu")


def is_main_process():
    return hvd.rank() == 0


def save_checkpoint(args, model, optimizer, scaler, step):
    if not is_main_process():
        return
    os.makedirs(args.output_dir, exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scaler": scaler.state_dict(), "global_step": step},
               os.path.join(args.output_dir, "ckpt_%d.pt" % step))
