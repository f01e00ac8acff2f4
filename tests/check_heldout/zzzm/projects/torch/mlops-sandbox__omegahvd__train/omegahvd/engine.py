import torch
import torch.nn.functional as F
import horovod.torch as hvd


class Engine(object):
    def __init__(self, model, optimizer, cfg):
        self.model = model
        self.optimizer = optimizer
        self.cfg = cfg
        self.device = next(model.parameters()).device

    def train_epoch(self, loader, epoch):
        self.model.train()
        total, n = 0.0, 0
        for step, (x, y) in enumerate(loader):
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            loss = F.cross_entropy(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            total += loss.item() * x.size(0)
            n += x.size(0)
        # sum of losses and sample counts over all workers, then divide
        t = hvd.allreduce(torch.tensor([total, float(n)]), op=hvd.Sum, name="train_loss")
        return (t[0] / t[1]).item()

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        loss_sum, correct, count = 0.0, 0.0, 0.0
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            out = self.model(x)
            loss_sum += F.cross_entropy(out, y, reduction="sum").item()
            correct += (out.argmax(1) == y).sum().item()
            count += y.numel()
        stats = hvd.allreduce(torch.tensor([loss_sum, correct, count], dtype=torch.float64),
                              op=hvd.Sum, name="val_stats")
        return {"loss": (stats[0] / stats[2]).item(), "acc": (stats[1] / stats[2]).item()}
