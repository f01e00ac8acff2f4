import math

import torch
import torchvision
import horovod.torch as hvd

from . import utils


def train_one_epoch(model, optimizer, data_loader, device, epoch, print_freq, warmup_iters=0):
    model.train()
    logger = utils.MetricLogger()
    lr_scheduler = None
    if epoch == 0 and warmup_iters > 0:
        lr_scheduler = torch.optim.lr_scheduler.LinearLR(
            optimizer, start_factor=0.001, total_iters=min(warmup_iters, len(data_loader) - 1)
        )
    for images, targets in logger.log_every(data_loader, print_freq, f"Epoch: [{epoch}]"):
        images = [img.to(device) for img in images]
        targets = [{k: v.to(device) for k, v in t.items()} for t in targets]
        loss_dict = model(images, targets)
        losses = sum(loss_dict.values())
        reduced = utils.reduce_dict(loss_dict)
        loss_value = sum(reduced.values()).item()
        if not math.isfinite(loss_value):
            raise RuntimeError(f"Loss is {loss_value}: {reduced}")
        optimizer.zero_grad()
        losses.backward()
        optimizer.step()
        if lr_scheduler is not None:
            lr_scheduler.step()
        logger.update(loss=loss_value, lr=optimizer.param_groups[0]["lr"], **reduced)


@torch.inference_mode()
def evaluate(model, data_loader, device, score_thr=0.05):
    """Gather (image_id, boxes, scores, labels) from every worker; rank 0 computes AP50 per class."""
    model.eval()
    results = []
    for images, targets in data_loader:
        outputs = model([img.to(device) for img in images])
        for out, tgt in zip(outputs, targets):
            keep = out["scores"] > score_thr
            results.append((int(tgt["image_id"]), {k: v[keep].cpu() for k, v in out.items()}, tgt))
    gathered = hvd.allgather_object(results, name="eval_results")
    if not utils.is_main_process():
        return None
    merged = {}
    for part in gathered:
        for image_id, pred, tgt in part:
            merged[image_id] = (pred, tgt)  # DistributedSampler pads with duplicates
    return average_precision_50(merged.values())


def average_precision_50(pairs):
    scores, tps, n_gt = [], [], 0
    for pred, tgt in pairs:
        n_gt += len(tgt["boxes"])
        if len(pred["boxes"]) == 0:
            continue
        matched = torch.zeros(len(tgt["boxes"]), dtype=torch.bool)
        iou = torchvision.ops.box_iou(pred["boxes"], tgt["boxes"]) if len(tgt["boxes"]) else None
        for j in pred["scores"].argsort(descending=True).tolist():
            scores.append(pred["scores"][j].item())
            hit = False
            if iou is not None:
                best = iou[j].argmax().item()
                if iou[j, best] >= 0.5 and not matched[best] and pred["labels"][j] == tgt["labels"][best]:
                    matched[best] = hit = True
            tps.append(hit)
    if not scores:
        return 0.0
    order = torch.tensor(scores).argsort(descending=True)
    tp = torch.tensor(tps, dtype=torch.float32)[order].cumsum(0)
    precision = tp / torch.arange(1, len(tp) + 1)
    recall = tp / max(n_gt, 1)
    return torch.trapz(precision, recall).item()
