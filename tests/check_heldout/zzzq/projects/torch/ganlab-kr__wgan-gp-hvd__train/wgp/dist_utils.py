import torch
import horovod.torch as hvd


def setup(opt):
    hvd.init()
    opt.cuda = torch.cuda.is_available() and not opt.no_cuda
    if opt.cuda:
        torch.cuda.set_device(hvd.local_rank())
        torch.backends.cudnn.benchmark = True
    opt.rank = hvd.rank()
    opt.world = hvd.size()
    torch.manual_seed(1234 + hvd.rank())
    return opt


def is_master():
    return hvd.rank() == 0


def all_mean(value, name):
    t = torch.tensor(float(value))
    return hvd.allreduce(t, name=name, op=hvd.Average).item()
