import torch
import torch.nn.functional as F

import horovod.torch as hvd


def dice_score(logits, mask, eps=1e-6):
    pred = logits.argmax(1)
    inter = ((pred == 1) & (mask == 1)).sum().float()
    return (2 * inter + eps) / ((pred == 1).sum() + (mask == 1).sum() + eps)


def train_one_epoch(model, optimizer, loader, epoch):
    model.train()
    for step, (img, mask) in enumerate(loader):
        img, mask = img.cuda(non_blocking=True), mask.cuda(non_blocking=True)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(img), mask)
        loss.backward()
        optimizer.step()
        if step % 20 == 0 and hvd.rank() == 0:
            print(f"  epoch {epoch} step {step} loss {loss.item():.4f}", flush=True)


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    scores = [dice_score(model(img.cuda()), mask.cuda()).item() for img, mask in loader]
    local = torch.tensor([sum(scores), float(len(scores))])
    total = hvd.allreduce(local, op=hvd.Sum, name="val_dice")
    return (total[0] / total[1]).item()
