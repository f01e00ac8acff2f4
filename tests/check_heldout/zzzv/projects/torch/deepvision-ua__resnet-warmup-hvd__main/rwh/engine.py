import torch
import torch.nn.functional as F


class Metric(object):
    def __init__(self, name, hvd):
        self.name = name
        self.hvd = hvd
        self.sum = torch.tensor(0.)
        self.n = torch.tensor(0.)

    def update(self, val, n=1):
        self.sum += self.hvd.allreduce(val.detach().cpu() * n, name=self.name, op=self.hvd.Sum)
        self.n += self.hvd.allreduce(torch.tensor(float(n)), name=self.name + "_n", op=self.hvd.Sum)

    @property
    def avg(self):
        return (self.sum / self.n).item()


def accuracy(output, target):
    return output.argmax(1).eq(target).float().mean()


def train_one_epoch(model, loader, optimizer, scheduler, epoch, hvd, log_every=20, device="cpu"):
    model.train()
    loss_m, acc_m = Metric("train_loss", hvd), Metric("train_acc", hvd)
    for i, (x, y) in enumerate(loader):
        lr = scheduler.step(epoch, i)
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        out = model(x)
        loss = F.cross_entropy(out, y)
        loss.backward()
        optimizer.step()
        loss_m.update(loss, x.size(0))
        acc_m.update(accuracy(out, y), x.size(0))
        if hvd.rank() == 0 and i % log_every == 0:
            print("ep %d it %d lr %.5f loss %.4f acc %.4f" % (epoch, i, lr, loss_m.avg, acc_m.avg))
    return loss_m.avg, acc_m.avg


@torch.no_grad()
def validate(model, loader, hvd, device="cpu"):
    model.eval()
    loss_m, acc_m = Metric("val_loss", hvd), Metric("val_acc", hvd)
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        out = model(x)
        loss_m.update(F.cross_entropy(out, y), x.size(0))
        acc_m.update(accuracy(out, y), x.size(0))
    return loss_m.avg, acc_m.avg
