import os

import torch
import horovod.torch as hvd


def setup():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    return torch.device("cpu")


def is_root():
    return hvd.rank() == 0


def sync_state(model, optimizer, start_epoch):
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    return hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")


def global_sum(*values):
    t = torch.tensor(values, dtype=torch.float64)
    return hvd.allreduce(t, op=hvd.Sum, name="global_sum").tolist()


def save_checkpoint(path, model, optimizer, epoch, scaler_stats):
    if not is_root():
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch, "scaler": scaler_stats}, path)
