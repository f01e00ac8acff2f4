import os

import torch
import horovod.torch as hvd


def init_horovod():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda")
    return torch.device("cpu")


def master_only(fn):
    def wrapper(*a, **kw):
        if hvd.rank() == 0:
            return fn(*a, **kw)
    return wrapper


@master_only
def save_checkpoint(model, optimizer, epoch, ckpt_dir):
    os.makedirs(ckpt_dir, exist_ok=True)
    torch.save({"model": model.state_dict(), "optim": optimizer.state_dict(), "epoch": epoch},
               os.path.join(ckpt_dir, "epoch_%d.pt" % epoch))


@master_only
def log(msg):
    print(msg, flush=True)


class F1Counter(object):
    """micro-F1 from TP/FP/FN summed over graphs, then over workers"""

    def __init__(self):
        self.c = torch.zeros(3, dtype=torch.float64)

    def update(self, logits, y):
        pred = (logits > 0).float()
        self.c += torch.tensor([(pred * y).sum().item(), (pred * (1 - y)).sum().item(),
                                ((1 - pred) * y).sum().item()], dtype=torch.float64)

    def allreduce_(self):
        self.c = hvd.allreduce(self.c, op=hvd.Sum, name="f1_counts")
        return self

    def value(self):
        tp, fp, fn = self.c.tolist()
        return 2 * tp / max(2 * tp + fp + fn, 1.0)
