import os
import time

import numpy as np
import torch
import torch.nn.functional as F
import horovod.torch as hvd

from . import checkpoint
from .data import make_loader, count_rows
from .dist_utils import log, is_master


def auc_np(y, p):
    order = np.argsort(p)
    y = y[order]
    n_pos = y.sum()
    n_neg = len(y) - n_pos
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    ranks = np.arange(1, len(y) + 1)
    return float((ranks[y == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


class EvalAccumulator:
    def __init__(self):
        self.preds = []
        self.labels = []

    def add(self, logits, y):
        self.preds.append(torch.sigmoid(logits).detach().cpu())
        self.labels.append(y.detach().cpu())

    def compute(self):
        p = torch.cat(self.preds)
        y = torch.cat(self.labels)
        # every rank has a different number of rows -> gather everything
        p = hvd.allgather(p, name="eval_p").numpy()
        y = hvd.allgather(y, name="eval_y").numpy()
        eps = 1e-7
        ll = -np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps))
        return {"auc": auc_np(y, p), "logloss": float(ll), "rows": int(len(y))}


class Trainer(object):
    def __init__(self, model, opt_sparse, opt_dense, device, args):
        self.model = model
        self.opt_sparse = opt_sparse
        self.opt_dense = opt_dense
        self.device = device
        self.args = args
        self.step = 0

    def train_epoch(self, files, epoch):
        self.model.train()
        loader = make_loader(files, hvd.rank(), hvd.size(), self.args, epoch=epoch)
        # parts have different row counts: stop every worker at the smallest number of batches
        mine = count_rows(loader.dataset.my_files(), self.args.synthetic, self.args.batch_size)
        n_steps = int(hvd.allreduce(torch.tensor(mine // self.args.batch_size), op=hvd.Min,
                                    name="n_steps_%d" % epoch).item())
        t0 = time.time()
        for it, (dense, cats, y) in enumerate(loader):
            if it >= n_steps:
                break
            dense, cats, y = dense.to(self.device), cats.to(self.device), y.to(self.device)
            self.opt_sparse.zero_grad()
            self.opt_dense.zero_grad()
            loss = F.binary_cross_entropy_with_logits(self.model(dense, cats), y)
            loss.backward()
            self.opt_sparse.step()
            self.opt_dense.step()
            self.step += 1
            if self.step % self.args.log_every == 0:
                log("epoch %d step %d loss %.5f %.1f rows/s" % (
                    epoch, self.step, loss.item(), self.step * self.args.batch_size * hvd.size() / (time.time() - t0)))
            if self.step % self.args.ckpt_every == 0 and is_master():
                checkpoint.save_sharded(self.model, self.opt_dense, self.step,
                                        os.path.join(self.args.ckpt_dir, "step_%d" % self.step), self.args.num_shards)

    @torch.no_grad()
    def evaluate(self, files):
        self.model.eval()
        acc = EvalAccumulator()
        for dense, cats, y in make_loader(files, hvd.rank(), hvd.size(), self.args):
            acc.add(self.model(dense.to(self.device), cats.to(self.device)), y)
        return acc.compute()
