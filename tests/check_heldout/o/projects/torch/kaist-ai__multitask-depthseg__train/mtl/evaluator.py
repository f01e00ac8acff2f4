import numpy as np
import torch


class SegDepthEvaluator:
    """Confusion-matrix mIoU for segmentation, abs-rel / RMSE for depth."""

    def __init__(self, num_classes, ignore_index=255):
        self.n = num_classes
        self.ignore = ignore_index
        self.reset()

    def reset(self):
        self.conf = np.zeros((self.n, self.n), dtype=np.int64)
        self.abs_rel_sum = 0.0
        self.sq_sum = 0.0
        self.pix = 0

    def add(self, out, batch):
        pred = out["seg"].argmax(1).cpu().numpy().ravel()
        gt = batch["seg"].cpu().numpy().ravel()
        keep = gt != self.ignore
        self.conf += np.bincount(self.n * gt[keep] + pred[keep], minlength=self.n ** 2).reshape(self.n, self.n)
        d_pred, d_gt = out["depth"].float().cpu(), batch["depth"].cpu()
        valid = d_gt > 0
        self.abs_rel_sum += ((d_pred[valid] - d_gt[valid]).abs() / d_gt[valid]).sum().item()
        self.sq_sum += ((d_pred[valid] - d_gt[valid]) ** 2).sum().item()
        self.pix += int(valid.sum())

    def summary(self):
        iou = np.diag(self.conf) / np.maximum(self.conf.sum(0) + self.conf.sum(1) - np.diag(self.conf), 1)
        return {"miou": float(np.nanmean(iou)),
                "abs_rel": self.abs_rel_sum / max(self.pix, 1),
                "rmse": float(np.sqrt(self.sq_sum / max(self.pix, 1)))}


@torch.no_grad()
def evaluate(model, loader, num_classes, device, amp=False):
    model.eval()
    ev = SegDepthEvaluator(num_classes)
    for batch in loader:
        batch = {k: v.to(device, non_blocking=True) for k, v in batch.items()}
        with torch.autocast(device_type=device.type, enabled=amp):
            out = model(batch["image"])
        ev.add(out, batch)
    return ev.summary()
