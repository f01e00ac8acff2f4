import torch
import torch.nn.functional as F
import horovod.torch as hvd


class EWC:
    """Online EWC (Schwarz et al. 2018): one running Fisher, anchored at the last task's optimum."""

    def __init__(self, model, lam=100.0, gamma=1.0):
        self.model = model
        self.lam = lam
        self.gamma = gamma
        self.fisher = {}
        self.anchor = {}

    def _trunk_params(self):
        return {n: p for n, p in self.model.named_parameters() if n.startswith("trunk.")}

    def consolidate(self, loader, task_id, device, max_batches=50):
        fisher = {n: torch.zeros_like(p) for n, p in self._trunk_params().items()}
        self.model.eval()
        seen = 0
        for i, (x, y) in enumerate(loader):
            if i == max_batches:
                break
            out = self.model(x.to(device), task_id)
            nll = F.nll_loss(F.log_softmax(out, 1), y.to(device))
            params = self._trunk_params()
            # autograd.grad leaves .grad (and the optimizer's allreduce hooks) alone
            grads = torch.autograd.grad(nll, list(params.values()))
            for n, g in zip(params, grads):
                fisher[n] += g.detach() ** 2 * x.size(0)
            seen += x.size(0)
        for n in fisher:
            # every worker estimated on its own shard: average them
            fisher[n] = hvd.allreduce(fisher[n] / max(seen, 1), name=f"fisher.{n}")
            old = self.fisher.get(n)
            self.fisher[n] = fisher[n] if old is None else self.gamma * old + fisher[n]
        self.anchor = {n: p.detach().clone() for n, p in self._trunk_params().items()}

    def penalty(self):
        if not self.fisher:
            return torch.zeros(())
        loss = 0.0
        for n, p in self._trunk_params().items():
            loss = loss + (self.fisher[n] * (p - self.anchor[n]) ** 2).sum()
        return 0.5 * self.lam * loss
