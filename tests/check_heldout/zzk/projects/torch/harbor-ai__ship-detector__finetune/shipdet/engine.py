import logging
import math
import time

import torch
import torchvision

logger = logging.getLogger("shipdet")


def warmup_lr_scheduler(optimizer, warmup_iters, warmup_factor):
    def f(x):
        if x >= warmup_iters:
            return 1
        alpha = float(x) / warmup_iters
        return warmup_factor * (1 - alpha) + alpha

    return torch.optim.lr_scheduler.LambdaLR(optimizer, f)


def train_one_epoch(model, optimizer, loader, device, epoch, warmup=None, scaler=None, log_interval=20):
    model.train()
    t0 = time.time()
    running = 0.0
    for it, (images, targets) in enumerate(loader):
        images = [im.to(device, non_blocking=True) for im in images]
        targets = [{k: (v.to(device) if torch.is_tensor(v) else v) for k, v in t.items()} for t in targets]
        with torch.autocast(device.type, enabled=scaler is not None):
            loss_dict = model(images, targets)
            loss = sum(loss_dict.values())
        if not math.isfinite(loss.item()):
            raise FloatingPointError(f"loss is {loss.item()} at epoch {epoch} iter {it}: {loss_dict}")
        optimizer.zero_grad()
        if scaler is not None:
            scaler.scale(loss).backward()
            optimizer.synchronize()
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()
        if warmup is not None:
            warmup.step()
        running += loss.item()
        if it % log_interval == 0:
            logger.info("epoch %d iter %d/%d loss %.4f lr %.5f (%.1fs)", epoch, it, len(loader), running / (it + 1),
                        optimizer.param_groups[0]["lr"], time.time() - t0)
    return running / max(len(loader), 1)


@torch.no_grad()
def evaluate(model, loader, device, iou_thr=0.5, score_thr=0.3):
    """Precision / recall of ship boxes at IoU 0.5 over the loader."""
    model.eval()
    tp = fp = n_gt = 0
    for images, targets in loader:
        outputs = model([im.to(device) for im in images])
        for out, tgt in zip(outputs, targets):
            keep = out["scores"] >= score_thr
            pred = out["boxes"][keep].cpu()
            gt = tgt["boxes"]
            n_gt += len(gt)
            if len(pred) == 0:
                continue
            if len(gt) == 0:
                fp += len(pred)
                continue
            matched = torchvision.ops.box_iou(pred, gt).max(dim=1).values >= iou_thr
            tp += int(matched.sum())
            fp += int((~matched).sum())
    precision = tp / max(tp + fp, 1)
    recall = tp / max(n_gt, 1)
    return {"precision": precision, "recall": recall}
