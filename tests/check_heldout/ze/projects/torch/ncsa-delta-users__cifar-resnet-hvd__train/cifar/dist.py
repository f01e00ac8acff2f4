"""Everything Horovod-specific lives here."""
import torch

import horovod.torch as hvd


def pin_device():
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda")
    return torch.device("cpu")


def make_optimizer(model, cfg):
    opt = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=cfg.momentum,
                          weight_decay=cfg.weight_decay)
    # op=Sum: the allreduced gradient is the sum over ranks, i.e. size() x the mean,
    # which is the usual linear scaling without touching cfg.lr
    return hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(), op=hvd.Sum)


def sync_initial_state(model, optimizer):
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def global_mean(value, name):
    return hvd.allreduce(torch.tensor(float(value)), name=name).item()


def is_root():
    return hvd.rank() == 0
