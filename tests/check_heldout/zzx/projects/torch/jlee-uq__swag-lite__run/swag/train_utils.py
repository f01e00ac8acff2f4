import torch
import torch.nn.functional as F
import horovod.torch as hvd


def adjust_lr(optimizer, epoch, cfg):
    """Cosine-free SWA schedule: constant, linear decay, then the SWA lr."""
    t = epoch / cfg["swa_start"]
    lr_ratio = cfg["swa_lr"] / cfg["lr"]
    if t <= 0.5:
        factor = 1.0
    elif t <= 0.9:
        factor = 1.0 - (1.0 - lr_ratio) * (t - 0.5) / 0.4
    else:
        factor = lr_ratio
    lr = cfg["lr"] * hvd.size() * factor
    for g in optimizer.param_groups:
        g["lr"] = lr
    return lr


def train_epoch(model, loader, optimizer, device):
    model.train()
    total = torch.zeros(2)
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += torch.tensor([loss.item() * len(y), len(y)])
    total = hvd.allreduce(total, op=hvd.Sum, name="train_loss")
    return (total[0] / total[1]).item()


@torch.no_grad()
def predict_probs(model, loader, device):
    model.eval()
    probs, targets = [], []
    for x, y in loader:
        probs.append(model(x.to(device)).softmax(-1).cpu())
        targets.append(y)
    return torch.cat(probs), torch.cat(targets)


def global_metrics(probs, targets):
    nll = -probs.gather(1, targets[:, None]).clamp_min(1e-12).log().sum()
    acc = probs.argmax(-1).eq(targets).sum()
    s = hvd.allreduce(torch.stack([nll.double(), acc.double(), torch.tensor(float(len(targets)), dtype=torch.float64)]),
                      op=hvd.Sum, name="eval_metrics")
    return {"nll": (s[0] / s[2]).item(), "acc": (s[1] / s[2]).item()}
