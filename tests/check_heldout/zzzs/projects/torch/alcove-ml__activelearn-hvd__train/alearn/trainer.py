import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

from . import data
from .metrics import SumMeter


class MLP(nn.Module):
    def __init__(self, n_in, n_cls, hidden=256):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Dropout(0.2),
                                 nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, n_cls))

    def forward(self, x):
        return self.net(x)


class Trainer:
    def __init__(self, args, device, n_in, n_cls):
        self.args = args
        self.device = device
        self.n_in, self.n_cls = n_in, n_cls
        self.model = None
        self.opt = None

    def build(self):
        model = MLP(self.n_in, self.n_cls, self.args.hidden)
        if self.args.warm_start and self.model is not None:
            model.load_state_dict(self.model.state_dict())
        model.to(self.device)
        opt = torch.optim.SGD(model.parameters(), lr=self.args.lr * hvd.size(), momentum=0.9)
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        # new model every round -> sync it every round
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        self.model, self.opt = model, opt

    def fit(self, ds, labeled_idx, rnd):
        self.model.train()
        for epoch in range(self.args.epochs):
            loader = data.labeled_loader(ds, labeled_idx, self.args.batch_size, epoch, seed=rnd)
            loss_m = SumMeter("train_loss")
            for x, y in loader:
                x, y = x.to(self.device), y.to(self.device)
                self.opt.zero_grad()
                loss = F.cross_entropy(self.model(x), y)
                loss.backward()
                self.opt.step()
                loss_m.update(loss.item() * len(y), len(y))
            tl = loss_m.compute()
            if hvd.rank() == 0 and (epoch + 1) % 5 == 0:
                print("  epoch %d train_loss %.4f" % (epoch + 1, tl))

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        acc = SumMeter("test_acc")
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            pred = self.model(x).argmax(1)
            acc.update((pred == y).sum().item(), len(y))
        return acc.compute()

    @torch.no_grad()
    def query(self, ds, pool_idx, k):
        self.model.eval()
        mine, loader = data.pool_loader(ds, pool_idx, self.args.batch_size)
        scores = []
        for x, _ in loader:
            p = F.softmax(self.model(x.to(self.device)), dim=1)
            if self.args.strategy == "entropy":
                s = -(p * torch.log(p + 1e-12)).sum(1)
            elif self.args.strategy == "margin":
                top2 = p.topk(2, dim=1).values
                s = -(top2[:, 0] - top2[:, 1])
            else:
                s = torch.rand(len(p))
            scores.append(s.cpu())
        scores = torch.cat(scores) if scores else torch.zeros(0)
        all_scores = hvd.allgather(scores.double(), name="q.scores")
        all_idx = hvd.allgather(torch.tensor(mine, dtype=torch.long), name="q.idx")
        order = torch.argsort(all_scores, descending=True)[:k]
        return all_idx[order].tolist()
