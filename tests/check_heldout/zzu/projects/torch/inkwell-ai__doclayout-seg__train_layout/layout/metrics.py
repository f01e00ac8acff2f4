import torch


def confusion(pred, target, k):
    idx = target.flatten() * k + pred.flatten()
    return torch.bincount(idx, minlength=k * k).reshape(k, k).double()


def mean_iou(conf):
    inter = conf.diag()
    union = conf.sum(0) + conf.sum(1) - inter
    iou = inter / union.clamp(min=1)
    return iou.mean().item(), iou.tolist()
