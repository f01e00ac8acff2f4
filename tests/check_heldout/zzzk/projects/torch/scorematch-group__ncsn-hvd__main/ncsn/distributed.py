import logging
import os

import torch
import horovod.torch as hvd


def init_distributed(args):
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda")
    return torch.device("cpu")


def master_only_logging(log_path):
    level = logging.INFO if hvd.rank() == 0 else logging.WARNING
    handlers = [logging.StreamHandler()]
    if hvd.rank() == 0:
        os.makedirs(log_path, exist_ok=True)
        handlers.append(logging.FileHandler(os.path.join(log_path, "stdout.txt")))
    logging.basicConfig(level=level, handlers=handlers,
                        format="%(levelname)s - %(filename)s - %(asctime)s - %(message)s")


def reduce_mean(value, name):
    if not torch.is_tensor(value):
        value = torch.tensor(value, dtype=torch.float32)
    return hvd.allreduce(value.detach().cpu(), name=name).item()
