import horovod.torch as hvd
import torch
import torch.nn.functional as F


def make_optimizers(ensemble, lr, wd):
    """One optimizer per member; each wrapped with its own parameter names."""
    opts = []
    for i, m in enumerate(ensemble.members):
        opt = torch.optim.AdamW(m.parameters(), lr=lr, weight_decay=wd)
        named = [(f"member{i}.{n}", p) for n, p in m.named_parameters()]
        opts.append(hvd.DistributedOptimizer(opt, named_parameters=named))
    return opts


def sync_all(ensemble, opts):
    hvd.broadcast_parameters(ensemble.state_dict(), root_rank=0)
    for opt in opts:
        hvd.broadcast_optimizer_state(opt, root_rank=0)


def train_epoch(ensemble, opts, batches):
    ensemble.train()
    total = 0.0
    for x, y in batches:
        for m, opt in zip(ensemble.members, opts):
            opt.zero_grad()
            loss = F.cross_entropy(m(x), y)
            loss.backward()
            opt.step()
            total += loss.item()
    return total / (len(batches) * len(opts))


@torch.no_grad()
def evaluate(ensemble, x, y):
    ensemble.eval()
    probs = ensemble(x)
    nll = F.nll_loss(probs.clamp_min(1e-8).log(), y).item()
    acc = (probs.argmax(-1) == y).float().mean().item()
    return {"nll": nll, "acc": acc}
