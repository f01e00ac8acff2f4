import torch
import horovod.torch as hvd


def confusion(pred, target, n):
    k = target * n + pred
    return torch.bincount(k.flatten(), minlength=n * n).reshape(n, n)


def global_miou(conf):
    """conf: this rank's confusion matrix; summed over ranks before IoU."""
    conf = hvd.allreduce(conf.double(), op=hvd.Sum, name="confusion")
    inter = conf.diag()
    union = conf.sum(0) + conf.sum(1) - inter
    iou = inter / union.clamp(min=1)
    return iou.mean().item(), iou.tolist()
