import os
import torch
import horovod.torch as hvd


def setup(args):
    hvd.init()
    if args.cuda and torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        torch.cuda.manual_seed(args.seed)
    else:
        args.cuda = False
    torch.manual_seed(args.seed)
    # keep the CPU threads per rank sane on shared nodes
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // hvd.local_size()))
    return hvd.rank(), hvd.size()


def is_master():
    return hvd.rank() == 0


def all_avg(val, name):
    t = val.detach().clone() if torch.is_tensor(val) else torch.tensor(float(val))
    return hvd.allreduce(t, name=name, op=hvd.Average).item()


def all_sum(val, name):
    t = torch.tensor(float(val))
    return hvd.allreduce(t, name=name, op=hvd.Sum).item()
