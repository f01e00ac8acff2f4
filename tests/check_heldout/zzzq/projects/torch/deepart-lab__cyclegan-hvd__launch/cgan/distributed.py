"""horovod helpers shared by the train worker"""
import torch
import horovod.torch as hvd


def setup():
    hvd.init()
    if torch.cuda.is_available():
        # one process per GPU
        torch.cuda.set_device(hvd.rank())
        return torch.device("cuda")
    return torch.device("cpu")


def is_main():
    return hvd.rank() == 0


def reduce_dict(d, prefix):
    keys = sorted(d)
    vals = torch.tensor([float(d[k]) for k in keys], dtype=torch.float64)
    vals = hvd.allreduce(vals, op=hvd.Average, name=prefix)
    return dict(zip(keys, vals.tolist()))
