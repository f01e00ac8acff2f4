import torch
import horovod.torch as hvd


def setup(args):
    """init horovod + pin this process to one GPU"""
    hvd.init()
    use_cuda = torch.cuda.is_available() and not args.no_cuda
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
    torch.set_num_threads(1)
    return device


def is_master():
    return hvd.rank() == 0


def log(*msg):
    if hvd.rank() == 0:
        print("[schnet]", *msg, flush=True)


def allreduce_sums(values, device):
    """sum a list of python floats over all workers"""
    t = torch.tensor(values, dtype=torch.float64, device=device)
    t = hvd.allreduce(t, op=hvd.Sum, name="metric_sums")
    return t.tolist()
