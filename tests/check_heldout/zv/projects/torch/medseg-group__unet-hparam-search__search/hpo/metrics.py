import torch
import horovod.torch as hvd


def dice(logits, target, eps=1e-6):
    pred = logits.argmax(1)
    inter = ((pred == 1) & (target == 1)).sum().float()
    denom = (pred == 1).sum().float() + (target == 1).sum().float()
    return (2 * inter + eps) / (denom + eps)


def reduce_mean(value, name):
    t = value if torch.is_tensor(value) else torch.tensor(float(value))
    return hvd.allreduce(t.detach().cpu(), name=name, op=hvd.Avg).item()
