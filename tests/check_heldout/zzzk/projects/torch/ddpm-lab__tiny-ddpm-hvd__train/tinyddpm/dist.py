import torch
import horovod.torch as hvd


def setup(args):
    hvd.init()
    args.cuda = torch.cuda.is_available() and not args.no_cuda
    if args.cuda:
        torch.cuda.set_device(hvd.local_rank())
        args.device = torch.device("cuda", hvd.local_rank())
    else:
        args.device = torch.device("cpu")
    torch.manual_seed(1234 + hvd.rank())
    torch.set_num_threads(1)
    return args


def is_main():
    return hvd.rank() == 0


def mean_scalar(value, name):
    t = torch.tensor(float(value))
    return hvd.allreduce(t, name=name, op=hvd.Average).item()
