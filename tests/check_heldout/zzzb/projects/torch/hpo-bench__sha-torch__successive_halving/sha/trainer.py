import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
import horovod.torch as hvd

from .models import build_mlp


class CandidateTrainer:
    """Owns one candidate: model, distributed optimizer and the epochs spent so far."""

    def __init__(self, cfg, train_set, val_set, in_dim, num_classes, batch_size=64):
        self.cfg = cfg
        self.epochs_done = 0
        self.model = build_mlp(in_dim, num_classes, cfg["hidden"], cfg["depth"], cfg["dropout"])
        opt = torch.optim.Adam(self.model.parameters(), lr=cfg["lr"] * hvd.size())
        self.optimizer = hvd.DistributedOptimizer(
            opt, named_parameters=[(f"c{cfg['cid']}.{n}", p) for n, p in self.model.named_parameters()])
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)
        g = torch.Generator().manual_seed(cfg["cid"])
        self.train_loader = DataLoader(train_set, batch_size=batch_size, shuffle=True, generator=g, drop_last=True)
        self.val_loader = DataLoader(val_set, batch_size=256)

    def train(self, epochs):
        self.model.train()
        for _ in range(epochs):
            for x, y in self.train_loader:
                self.optimizer.zero_grad()
                F.cross_entropy(self.model(x), y).backward()
                self.optimizer.step()
            self.epochs_done += 1

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        correct = total = 0
        for x, y in self.val_loader:
            correct += (self.model(x).argmax(1) == y).sum().item()
            total += y.numel()
        return correct / max(total, 1)
