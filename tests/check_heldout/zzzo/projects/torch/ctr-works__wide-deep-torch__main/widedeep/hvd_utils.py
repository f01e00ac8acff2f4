import torch
import horovod.torch as hvd


def init_horovod(cpu=False):
    hvd.init()
    if torch.cuda.is_available() and not cpu:
        # one process per gpu
        torch.cuda.set_device(hvd.rank())
        dev = torch.device("cuda")
    else:
        dev = torch.device("cpu")
    torch.set_num_threads(max(1, torch.get_num_threads() // max(1, hvd.local_size())))
    return dev


def metric_sum(value, name):
    t = torch.tensor(value, dtype=torch.float64)
    return hvd.allreduce(t, name=name, op=hvd.Sum).item()


def rank0_print(*a):
    if hvd.rank() == 0:
        print(*a, flush=True)
