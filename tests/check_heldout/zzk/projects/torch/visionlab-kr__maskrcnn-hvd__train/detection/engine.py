import math
import sys

import torch
import torchvision
import horovod.torch as hvd

from . import utils


def train_one_epoch(model, optimizer, data_loader, device, epoch, print_freq, scaler=None):
    model.train()
    metric_logger = utils.MetricLogger(delimiter="  ")
    metric_logger.add_meter("lr", utils.SmoothedValue(window_size=1, fmt="{value:.6f}"))
    header = f"Epoch: [{epoch}]"

    lr_scheduler = None
    if epoch == 0:
        warmup_factor = 1.0 / 1000
        warmup_iters = min(1000, len(data_loader) - 1)
        lr_scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=warmup_factor, total_iters=max(warmup_iters, 1))

    for images, targets in metric_logger.log_every(data_loader, print_freq, header):
        images = list(image.to(device) for image in images)
        targets = [{k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in t.items()} for t in targets]
        with torch.autocast(device_type=device.type, enabled=scaler is not None):
            loss_dict = model(images, targets)
            losses = sum(loss for loss in loss_dict.values())

        loss_dict_reduced = utils.reduce_dict(loss_dict)
        losses_reduced = sum(loss for loss in loss_dict_reduced.values())
        loss_value = losses_reduced.item()
        if not math.isfinite(loss_value):
            print(f"Loss is {loss_value}, stopping training")
            print(loss_dict_reduced)
            sys.exit(1)

        optimizer.zero_grad()
        if scaler is not None:
            scaler.scale(losses).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
        else:
            losses.backward()
            optimizer.step()

        if lr_scheduler is not None:
            lr_scheduler.step()

        metric_logger.update(loss=losses_reduced, **loss_dict_reduced)
        metric_logger.update(lr=optimizer.param_groups[0]["lr"])
    return metric_logger


@torch.inference_mode()
def evaluate(model, data_loader, device, iou_thresh=0.5, score_thresh=0.05):
    """Box recall at IoU 0.5 over the (sharded) validation set, summed over workers."""
    model.eval()
    metric_logger = utils.MetricLogger(delimiter="  ")
    hits = torch.zeros(1, dtype=torch.float64)
    total = torch.zeros(1, dtype=torch.float64)
    for images, targets in metric_logger.log_every(data_loader, 100, "Test:"):
        images = list(img.to(device) for img in images)
        outputs = model(images)
        for out, tgt in zip(outputs, targets):
            gt = tgt["boxes"]
            total += len(gt)
            pred = out["boxes"][out["scores"] > score_thresh].cpu()
            if len(gt) and len(pred):
                iou = torchvision.ops.box_iou(gt, pred)
                hits += (iou.max(dim=1).values >= iou_thresh).sum().item()
    hits = hvd.allreduce(hits, op=hvd.Sum, name="eval_hits")
    total = hvd.allreduce(total, op=hvd.Sum, name="eval_total")
    recall = (hits / total.clamp(min=1)).item()
    print(f"box recall@{iou_thresh}: {recall:.4f} ({int(total.item())} gt boxes)")
    return recall
