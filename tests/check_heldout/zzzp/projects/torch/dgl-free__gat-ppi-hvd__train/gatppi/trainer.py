import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .ppi_data import graph_loader
from .utils import F1Counter


class PPITrainer(object):
    def __init__(self, model, base_lr, warmup_epochs, device):
        self.model = model
        self.device = device
        self.base_lr = base_lr
        self.warmup = warmup_epochs
        opt = torch.optim.Adam(model.parameters(), lr=base_lr)
        self.opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())

    def adjust_lr(self, epoch):
        # goyal et al.: ramp from base_lr to base_lr * N over the warmup epochs
        if epoch < self.warmup:
            factor = 1.0 + (hvd.size() - 1.0) * epoch / self.warmup
        else:
            factor = float(hvd.size())
        for g in self.opt.param_groups:
            g["lr"] = self.base_lr * factor

    def sync_initial_state(self):
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.opt, root_rank=0)

    def train_epoch(self, graphs, my_ids, bg, epoch):
        self.adjust_lr(epoch)
        self.model.train()
        tot = 0.0
        for x, ei, y in graph_loader(graphs, bg, order=my_ids):
            x, ei, y = x.to(self.device), ei.to(self.device), y.to(self.device)
            loss = F.binary_cross_entropy_with_logits(self.model(x, ei), y)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            tot += loss.item()
        return tot

    @torch.no_grad()
    def micro_f1(self, graphs, my_ids):
        self.model.eval()
        f1 = F1Counter()
        for x, ei, y in graph_loader(graphs, 1, order=my_ids):
            f1.update(self.model(x.to(self.device), ei.to(self.device)).cpu(), y)
        return f1.allreduce_().value()
