import torch
import horovod.torch as hvd


class DisplacementError:
    """minADE / minFDE over K modes, accumulated as sums and merged over all workers."""

    def __init__(self, name="val"):
        self.name = name
        self.reset()

    def reset(self):
        self.ade_sum = torch.zeros(())
        self.fde_sum = torch.zeros(())
        self.count = torch.zeros(())

    @torch.no_grad()
    def update(self, futures, target):
        dist = (futures - target.unsqueeze(1)).norm(dim=-1)  # (B, K, T)
        self.ade_sum += dist.mean(-1).min(1).values.sum().cpu()
        self.fde_sum += dist[..., -1].min(1).values.sum().cpu()
        self.count += target.shape[0]

    def compute(self):
        totals = hvd.allreduce(torch.stack([self.ade_sum, self.fde_sum, self.count]),
                               op=hvd.Sum, name=f"{self.name}.displacement")
        return {"minADE": (totals[0] / totals[2]).item(), "minFDE": (totals[1] / totals[2]).item()}
