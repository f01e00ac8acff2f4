import torch
import horovod.torch as hvd


def init_horovod(opt):
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.rank())
        opt.device = torch.device("cuda")
    else:
        opt.device = torch.device("cpu")
        opt.fp16 = False
    torch.manual_seed(2024 + hvd.rank())
    opt.world_size = hvd.size()
    return opt


def barrier():
    hvd.allreduce(torch.zeros(1), name="barrier")
