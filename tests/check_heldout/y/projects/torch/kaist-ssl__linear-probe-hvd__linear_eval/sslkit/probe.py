import torch
import torch.nn.functional as F

from . import dist


def train_one_epoch(backbone, head, loader, optimizer):
    head.train()
    total, steps = 0.0, 0
    for images, target in loader:
        images, target = images.to(dist.device()), target.to(dist.device())
        with torch.no_grad():
            feats = backbone(images)
        loss = F.cross_entropy(head(feats), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
        steps += 1
    return dist.all_mean(total / max(steps, 1), "probe_train_loss")


@torch.no_grad()
def evaluate(backbone, head, loader):
    head.eval()
    correct = seen = 0
    for images, target in loader:
        images, target = images.to(dist.device()), target.to(dist.device())
        pred = head(backbone(images)).argmax(1)
        correct += (pred == target).sum().item()
        seen += target.numel()
    return 100.0 * correct / max(seen, 1)
