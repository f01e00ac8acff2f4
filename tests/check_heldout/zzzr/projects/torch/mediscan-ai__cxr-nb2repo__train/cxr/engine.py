import math
import torch
import torch.nn as nn
import horovod.torch as hvd

from .dist_utils import average


class Trainer:
    def __init__(self, model, opt, device):
        self.model = model.to(device)
        self.opt = opt
        self.device = device
        self.criterion = nn.BCEWithLogitsLoss()
        lr = opt.base_lr * hvd.size()
        sgd = torch.optim.SGD(self.model.parameters(), lr=lr, momentum=opt.momentum,
                              weight_decay=opt.wd)
        self.optimizer = hvd.DistributedOptimizer(sgd, named_parameters=self.model.named_parameters(),
                                                  compression=hvd.Compression.fp16)
        # warmup then cosine, same as the last notebook cell
        self.warmup = self.opt.warmup_epochs
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(sgd, self._lr_lambda)
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def _lr_lambda(self, epoch):
        if epoch < self.warmup:
            return (epoch + 1) / self.warmup
        t = (epoch - self.warmup) / max(1, self.opt.epochs - self.warmup)
        return 0.5 * (1 + math.cos(math.pi * t))

    def train_one_epoch(self, loader):
        self.model.train()
        tot, n = 0.0, 0
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            tot += loss.item()
            n += 1
        self.scheduler.step()
        return average(tot / max(n, 1), "train_loss")

    @torch.no_grad()
    def validate(self, loader):
        self.model.eval()
        tot, n = 0.0, 0
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            tot += self.criterion(self.model(x), y).item() * x.size(0)
            n += x.size(0)
        s = hvd.allreduce(torch.tensor([tot, float(n)]), op=hvd.Sum, name="val")
        return (s[0] / s[1]).item()
