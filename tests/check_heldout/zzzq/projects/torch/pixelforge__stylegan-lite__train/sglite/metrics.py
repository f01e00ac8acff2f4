import torch
import horovod.torch as hvd


class RunningMean:
    def __init__(self, name):
        self.name = name
        self.total = torch.zeros(())
        self.count = torch.zeros(())

    def update(self, v, n=1):
        self.total += float(v) * n
        self.count += n

    def value(self):
        t = hvd.allreduce(self.total, op=hvd.Sum, name=self.name + ".t")
        c = hvd.allreduce(self.count, op=hvd.Sum, name=self.name + ".c")
        return (t / c.clamp(min=1)).item()


@torch.no_grad()
def pixel_diversity(G, n, z_dim, device):
    """cheap mode-collapse check: mean pairwise L2 of generated samples"""
    x = G(torch.randn(n, z_dim, device=device)).flatten(1)
    d = torch.cdist(x, x).mean()
    return hvd.allreduce(d, op=hvd.Average, name="diversity").item()
