import torch


def masked_mse(pred, target):
    """MSE over the points inside the WRF domain (target is NaN outside)."""
    mask = ~torch.isnan(target)
    return ((pred - torch.nan_to_num(target)) ** 2)[mask].mean()


def sum_sq_error(pred, target):
    mask = ~torch.isnan(target)
    err = ((pred - torch.nan_to_num(target)) ** 2)[mask]
    return err.sum().item(), float(mask.sum().item())
