import os

import torch
import torch.nn.functional as F

import horovod.torch as hvd

from .model import grasp_cnn


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.device = torch.device("cpu")
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
            self.device = torch.device("cuda", hvd.local_rank())
        torch.manual_seed(cfg.seed)
        self.model = grasp_cnn().to(self.device)
        lr = cfg.lr * (hvd.size() if cfg.scale_lr else 1)
        opt = torch.optim.SGD(self.model.parameters(), lr=lr, momentum=0.9, weight_decay=cfg.weight_decay)
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters())
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def train_epoch(self, loader):
        self.model.train()
        total, n = 0.0, 0
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            loss = F.cross_entropy(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            total, n = total + loss.item() * len(y), n + len(y)
        return hvd.allreduce(torch.tensor(total / max(n, 1)), name="train_loss").item()

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        stats = torch.zeros(3, dtype=torch.float64)  # loss sum, correct, count
        for x, y in loader:
            out = self.model(x.to(self.device)).cpu()
            stats += torch.tensor([F.cross_entropy(out, y, reduction="sum").item(),
                                   (out.argmax(1) == y).sum().item(), len(y)], dtype=torch.float64)
        stats = hvd.allreduce(stats, op=hvd.Sum, name="val_stats")
        return (stats[0] / stats[2]).item(), (stats[1] / stats[2]).item()

    def save(self, epoch):
        if hvd.rank() != 0:
            return
        os.makedirs(self.cfg.out_dir, exist_ok=True)
        torch.save({"epoch": epoch, "model": self.model.state_dict(), "optimizer": self.optimizer.state_dict()},
                   os.path.join(self.cfg.out_dir, "grasp_last.pt"))
