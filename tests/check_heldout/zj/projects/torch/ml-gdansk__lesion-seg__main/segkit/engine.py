import horovod.torch as hvd
import torch
import torch.nn.functional as F

from .optim import poly_lr


def train_one_epoch(model, loader, optimizers, base_lrs, epoch, max_it, device, log_fn=None):
    model.train()
    it0 = epoch * len(loader)
    for i, (img, mask) in enumerate(loader):
        img, mask = img.to(device), mask.to(device)
        poly_lr(optimizers, base_lrs, it0 + i, max_it)
        loss = F.cross_entropy(model(img), mask)
        for opt in optimizers.values():
            opt.zero_grad()
        loss.backward()
        for opt in optimizers.values():
            opt.step()
        if log_fn is not None and i % 20 == 0:
            log_fn(epoch, i, loss.item())


@torch.no_grad()
def validate(model, loader, device, num_classes):
    model.eval()
    inter = torch.zeros(num_classes, dtype=torch.float64)
    union = torch.zeros(num_classes, dtype=torch.float64)
    for img, mask in loader:
        pred = model(img.to(device)).argmax(1).cpu()
        for c in range(num_classes):
            p, t = pred == c, mask == c
            inter[c] += (p & t).sum()
            union[c] += p.sum() + t.sum()
    inter = hvd.allreduce(inter, op=hvd.Sum, name="dice_inter")
    union = hvd.allreduce(union, op=hvd.Sum, name="dice_union")
    dice = 2 * inter / union.clamp(min=1)
    return {"dice": dice[1:].mean().item(), "dice_per_class": dice.tolist()}
