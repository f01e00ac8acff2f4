"""Small Horovod compatibility layer (cluster A still has horovod 0.16)."""
import pickle

import torch
import horovod.torch as hvd


if hasattr(hvd, "broadcast_object"):
    broadcast_object = hvd.broadcast_object
else:  # horovod < 0.20
    def broadcast_object(obj, root_rank=0, name=None):
        buf = torch.ByteTensor(list(pickle.dumps(obj))) if hvd.rank() == root_rank else torch.ByteTensor()
        n = hvd.broadcast(torch.LongTensor([buf.numel()]), root_rank, name=(name or "obj") + ".n").item()
        if hvd.rank() != root_rank:
            buf = torch.zeros(n, dtype=torch.uint8)
        buf = hvd.broadcast(buf, root_rank, name=(name or "obj") + ".buf")
        return pickle.loads(bytes(buf.tolist()))


def prefixed(named_params, prefix):
    return [(prefix + "." + n, p) for n, p in named_params]


def set_requires_grad(net, flag):
    for p in net.parameters():
        p.requires_grad_(flag)


def mean_over_workers(values, name):
    t = torch.tensor(values, dtype=torch.float32)
    return hvd.allreduce(t, op=hvd.Average, name=name).tolist()
