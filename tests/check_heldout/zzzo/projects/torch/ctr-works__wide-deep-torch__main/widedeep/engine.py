import math
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .hvd_utils import metric_sum, rank0_print


def train_one_epoch(model, loader, opt_wide, opt_deep, device, epoch):
    model.train()
    for it, (x, y) in enumerate(loader):
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        logit = model(x)
        loss = F.binary_cross_entropy_with_logits(logit, y)
        opt_wide.zero_grad()
        opt_deep.zero_grad()
        loss.backward()
        opt_wide.step()
        opt_deep.step()
        if it % 200 == 0:
            rank0_print("ep %d it %d loss %.4f" % (epoch, it, loss.item()))


@torch.no_grad()
def validate(model, loader, device):
    """log loss and a bucketed AUC (histogram of scores), summed over workers"""
    model.eval()
    nb = 1000
    pos = torch.zeros(nb, dtype=torch.float64)
    neg = torch.zeros(nb, dtype=torch.float64)
    ll_sum, n = 0.0, 0
    for x, y in loader:
        p = torch.sigmoid(model(x.to(device))).cpu().double()
        y = y.double()
        ll_sum += F.binary_cross_entropy(p, y, reduction="sum").item()
        n += len(y)
        b = (p * (nb - 1)).long()
        pos += torch.bincount(b[y > 0.5], minlength=nb).double()
        neg += torch.bincount(b[y <= 0.5], minlength=nb).double()
    pos = hvd.allreduce(pos, name="auc_pos", op=hvd.Sum)
    neg = hvd.allreduce(neg, name="auc_neg", op=hvd.Sum)
    ll_sum = metric_sum(ll_sum, "ll_sum")
    n = metric_sum(n, "n_rows")
    # P(score_pos > score_neg), ties count half
    cum_neg = torch.cumsum(neg, 0) - neg
    auc = ((pos * cum_neg).sum() + 0.5 * (pos * neg).sum()) / max(pos.sum() * neg.sum(), 1.0)
    return {"logloss": ll_sum / max(n, 1), "auc": auc.item()}


def save(model, opt_deep, epoch, save_dir):
    os.makedirs(save_dir, exist_ok=True)
    torch.save({"model": model.state_dict(), "opt_deep": opt_deep.state_dict(), "epoch": epoch},
               os.path.join(save_dir, "widedeep_ep%d.pt" % epoch))
