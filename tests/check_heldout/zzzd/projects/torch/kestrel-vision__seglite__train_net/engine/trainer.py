import logging

import torch
import torch.nn.functional as F

from . import dist

logger = logging.getLogger("seglite")


def confusion(pred, target, num_classes):
    idx = target.flatten() * num_classes + pred.flatten()
    return torch.bincount(idx, minlength=num_classes ** 2).reshape(num_classes, num_classes)


def train_one_epoch(model, loader, optimizer, scheduler, epoch, device, print_freq=20):
    model.train()
    for it, (images, masks) in enumerate(loader):
        images, masks = images.to(device), masks.to(device)
        loss = F.cross_entropy(model(images), masks)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        if it % print_freq == 0 and dist.is_main_process():
            logger.info("epoch %d it %d loss %.4f lr %.5f", epoch, it, loss.item(),
                        optimizer.param_groups[0]["lr"])


@torch.no_grad()
def evaluate(model, loader, num_classes, device):
    model.eval()
    cm = torch.zeros(num_classes, num_classes, dtype=torch.int64)
    for images, masks in loader:
        pred = model(images.to(device)).argmax(1).cpu()
        cm += confusion(pred, masks, num_classes)
    cm = cm.double()
    iou = cm.diag() / (cm.sum(0) + cm.sum(1) - cm.diag()).clamp(min=1)
    stats = torch.stack([iou.mean(), cm.diag().sum() / cm.sum()])
    stats = dist.all_reduce_mean(stats, name="val_stats")
    return {"mIoU": stats[0].item(), "pixel_acc": stats[1].item()}
