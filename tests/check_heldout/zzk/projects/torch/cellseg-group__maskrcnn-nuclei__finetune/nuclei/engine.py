import logging
import time

import torch

log = logging.getLogger(__name__)


def train_one_epoch(model, optimizer, scheduler, loader, device, epoch, print_freq=20):
    model.train()
    start = time.time()
    for i, (images, targets) in enumerate(loader):
        images = [im.to(device) for im in images]
        targets = [{k: v.to(device) for k, v in t.items()} for t in targets]
        loss_dict = model(images, targets)
        loss = sum(loss_dict.values())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        if i % print_freq == 0:
            parts = " ".join(f"{k}={v.item():.3f}" for k, v in loss_dict.items())
            log.info("epoch %d [%d/%d] loss=%.4f %s lr=%.2e", epoch, i, len(loader), loss.item(), parts,
                     optimizer.param_groups[0]["lr"])
    log.info("epoch %d took %.1fs", epoch, time.time() - start)


@torch.no_grad()
def evaluate(model, loader, device, thr=0.5):
    """Aggregated Jaccard-like score: mean over images of (matched IoU sum / (#gt + #unmatched preds))."""
    model.eval()
    scores = []
    for images, targets in loader:
        outputs = model([im.to(device) for im in images])
        for out, tgt in zip(outputs, targets):
            gt = tgt["masks"].bool()
            pred = (out["masks"][:, 0] > thr).cpu()
            if len(pred) == 0 or len(gt) == 0:
                scores.append(0.0)
                continue
            inter = (gt[:, None] & pred[None]).flatten(2).sum(-1).float()
            union = (gt[:, None] | pred[None]).flatten(2).sum(-1).float()
            iou = inter / union.clamp(min=1)
            best = iou.max(1).values
            used = iou.argmax(1).unique()
            scores.append(best.sum().item() / (len(gt) + len(pred) - len(used)))
    return sum(scores) / max(len(scores), 1)
