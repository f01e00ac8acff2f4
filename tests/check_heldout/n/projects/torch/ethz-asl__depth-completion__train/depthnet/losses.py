import torch


def masked_l2(pred, gt):
    mask = gt > 0
    if mask.sum() == 0:
        return pred.sum() * 0.0
    return ((pred - gt)[mask] ** 2).mean()


@torch.no_grad()
def error_sums(pred, gt):
    """Sums for RMSE / MAE over valid pixels (in mm, KITTI convention): (sq_err, abs_err, n)."""
    mask = gt > 0
    diff = (pred - gt)[mask] * 1000.0
    return torch.stack([(diff ** 2).sum(), diff.abs().sum(), mask.sum().float()])
