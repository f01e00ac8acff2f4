"""Per-process training function; ``launch.py`` starts it on every slot with horovod.run."""
import math
import time

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

import horovod.torch as hvd

from recsys.ckpt import save_model
from recsys.data import load_interactions
from recsys.model import NeuMF


def run_epoch(model, loader, opt, device):
    model.train()
    total, n = 0.0, 0
    for users, items, labels in loader:
        users, items, labels = users.to(device), items.to(device), labels.to(device)
        opt.zero_grad()
        loss = F.binary_cross_entropy_with_logits(model(users, items), labels)
        loss.backward()
        opt.step()
        total += loss.item() * len(labels)
        n += len(labels)
    return total / max(n, 1)


@torch.no_grad()
def evaluate(model, loader, k, device):
    model.eval()
    hits, ndcg, n = 0.0, 0.0, 0
    for users, cands in loader:
        users, cands = users.to(device), cands.to(device)
        scores = model(users.unsqueeze(1).expand_as(cands), cands)
        topk = scores.topk(k, dim=1).indices
        pos = (topk == 0).nonzero()
        hits += len(pos)
        ndcg += sum(1.0 / math.log2(r + 2) for r in pos[:, 1].tolist())
        n += len(users)
    return hits / n, ndcg / n


def train_worker(cfg):
    hvd.init()
    torch.manual_seed(cfg["seed"])
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        torch.set_num_threads(cfg.get("threads_per_worker", 1))
        device = torch.device("cpu")
    from recsys.profiling import maybe_profile

    train_set, holdout, num_users, num_items = load_interactions(cfg["data_dir"], cfg["num_neg"], cfg["seed"])
    sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), seed=cfg["seed"])
    loader = DataLoader(train_set, batch_size=cfg["batch_size"], sampler=sampler, num_workers=2)
    holdout_loader = DataLoader(
        holdout, batch_size=256,
        sampler=DistributedSampler(holdout, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False))

    model = NeuMF(num_users, num_items, factors=cfg["factors"]).to(device)
    step_rule = torch.optim.Adam(model.parameters(), lr=cfg["lr"] * hvd.size())
    step_rule = hvd.DistributedOptimizer(step_rule, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(step_rule, root_rank=0)

    best = {"hr": 0.0, "ndcg": 0.0}
    for epoch in range(cfg["epochs"]):
        sampler.set_epoch(epoch)
        train_set.resample()
        tic = time.time()
        with maybe_profile(cfg.get("profile_dir"), enabled=epoch == 1 and hvd.rank() == 0):
            loss = run_epoch(model, loader, step_rule, device)
        hr, ndcg = evaluate(model, holdout_loader, cfg["topk"], device)
        if hvd.rank() == 0:
            print(f"epoch {epoch:2d} loss {loss:.4f} HR@{cfg['topk']} {hr:.4f} "
                  f"NDCG@{cfg['topk']} {ndcg:.4f} ({time.time() - tic:.1f}s)", flush=True)
            if hr > best["hr"]:
                best = {"hr": hr, "ndcg": ndcg}
                save_model(model, cfg["out_dir"], epoch, best)
    return best
