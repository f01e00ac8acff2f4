import torch
import torch.nn.functional as F
import horovod.torch as hvd


def dice_loss(logits, target, eps=1.0):
    prob = torch.sigmoid(logits)
    inter = (prob * target).sum((1, 2, 3))
    return 1 - ((2 * inter + eps) / (prob.sum((1, 2, 3)) + target.sum((1, 2, 3)) + eps)).mean()


def train_one_epoch(model, loader, optimizers, device):
    model.train()
    for img, mask in loader:
        img, mask = img.to(device), mask.to(device)
        for opt in optimizers:
            opt.zero_grad()
        logits = model(img)
        loss = F.binary_cross_entropy_with_logits(logits, mask) + dice_loss(logits, mask)
        loss.backward()
        for opt in optimizers:
            opt.step()


@torch.no_grad()
def validate(model, loader, device):
    model.eval()
    inter = torch.zeros(1, device=device)
    union = torch.zeros(1, device=device)
    for img, mask in loader:
        pred = (model(img.to(device)) > 0).float()
        mask = mask.to(device)
        inter += (pred * mask).sum()
        union += ((pred + mask) > 0).float().sum()
    inter = hvd.allreduce(inter.cpu(), op=hvd.Sum, name="val_inter")
    union = hvd.allreduce(union.cpu(), op=hvd.Sum, name="val_union")
    return (inter / union.clamp(min=1)).item()
