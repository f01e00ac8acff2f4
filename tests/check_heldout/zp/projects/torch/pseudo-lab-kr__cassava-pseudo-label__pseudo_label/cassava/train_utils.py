import torch
import torch.nn.functional as F
import horovod.torch as hvd


def make_optimizer(model, cfg):
    opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"] * hvd.size(),
                          momentum=cfg["momentum"], weight_decay=cfg["weight_decay"])
    return hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())


def train_one_epoch(model, loader, optimizer, device, label_smoothing=0.1):
    model.train()
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y, label_smoothing=label_smoothing)
        loss.backward()
        optimizer.step()
    return loss.item()


@torch.no_grad()
def validate(model, loader, device):
    model.eval()
    correct = total = 0
    for x, y in loader:
        pred = model(x.to(device)).argmax(1).cpu()
        correct += (pred == y).sum().item()
        total += y.numel()
    return correct / max(total, 1)
