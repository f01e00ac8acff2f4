import torch
import horovod.torch as hvd


def setup(args):
    hvd.init()
    use_cuda = torch.cuda.is_available() and not args.no_cuda
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        torch.set_num_threads(1)
        device = torch.device("cpu")
    return device


def is_master():
    return hvd.rank() == 0


def mean_over_workers(value, name):
    t = torch.tensor(float(value))
    return hvd.allreduce(t, name=name, op=hvd.Average).item()


def log(*msg):
    if is_master():
        print("[gcn-hvd]", *msg, flush=True)
