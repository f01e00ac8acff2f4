import torch


def epe_and_d1(pred, gt, max_disp):
    """Sum of end-point errors, D1 outliers and valid pixels for one batch."""
    mask = (gt > 0) & (gt < max_disp)
    err = (pred - gt).abs()[mask]
    d1 = ((err > 3.0) & (err > 0.05 * gt[mask])).sum()
    return err.sum().item(), d1.item(), mask.sum().item()
