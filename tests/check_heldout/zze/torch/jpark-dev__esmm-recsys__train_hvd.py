"""ESMM (entire-space multi-task model): CTR and CTCVR towers over shared embeddings.

Data: parquet exported to npz with columns user_id, item_id, cat_id, click, buy.
Run:  horovodrun -np 4 python train_hvd.py --train data/train.npz --valid data/valid.npz
"""
import argparse
import logging
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

import horovod.torch as hvd

logging.basicConfig(
    stream=sys.stdout,
    level=logging.INFO,
    format=f"%(asctime)s [worker {hvd.rank()}] %(levelname)s %(message)s",
)
logger = logging.getLogger(__name__)


class Tower(nn.Module):
    def __init__(self, d_in, hidden=(128, 64)):
        super().__init__()
        layers, d = [], d_in
        for h in hidden:
            layers += [nn.Linear(d, h), nn.ReLU(), nn.Dropout(0.1)]
            d = h
        layers.append(nn.Linear(d, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x).squeeze(-1)


class ESMM(nn.Module):
    def __init__(self, n_users, n_items, n_cats, dim=16):
        super().__init__()
        self.user = nn.Embedding(n_users, dim)
        self.item = nn.Embedding(n_items, dim)
        self.cat = nn.Embedding(n_cats, dim)
        self.ctr = Tower(3 * dim)
        self.cvr = Tower(3 * dim)

    def forward(self, u, i, c):
        x = torch.cat([self.user(u), self.item(i), self.cat(c)], dim=-1)
        p_ctr = torch.sigmoid(self.ctr(x))
        p_cvr = torch.sigmoid(self.cvr(x))
        return p_ctr, p_ctr * p_cvr          # pCTR, pCTCVR


def load_npz(path):
    d = np.load(path)
    cols = [torch.from_numpy(d[k]).long() for k in ("user_id", "item_id", "cat_id")]
    cols += [torch.from_numpy(d[k]).float() for k in ("click", "buy")]
    return TensorDataset(*cols)


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--train", required=True)
    p.add_argument("--valid", required=True)
    p.add_argument("--n-users", type=int, default=200000)
    p.add_argument("--n-items", type=int, default=500000)
    p.add_argument("--n-cats", type=int, default=5000)
    p.add_argument("--batch-size", type=int, default=1024)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--ctcvr-weight", type=float, default=1.0)
    p.add_argument("--save-dir", default="checkpoints")
    return p.parse_args()


def validate(model, loader, device):
    model.eval()
    ctr_loss = ctcvr_loss = 0.0
    n = 0
    with torch.no_grad():
        for u, i, c, click, buy in loader:
            u, i, c, click, buy = (t.to(device) for t in (u, i, c, click, buy))
            p_ctr, p_ctcvr = model(u, i, c)
            ctr_loss += F.binary_cross_entropy(p_ctr, click, reduction="sum").item()
            ctcvr_loss += F.binary_cross_entropy(p_ctcvr, buy, reduction="sum").item()
            n += click.numel()
    local = torch.tensor([ctr_loss / n, ctcvr_loss / n])
    return hvd.allreduce(local, op=hvd.Sum, name="val_logloss")


def main():
    args = get_args()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(2024)

    train_ds, valid_ds = load_npz(args.train), load_npz(args.valid)
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    valid_sampler = DistributedSampler(valid_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler)
    valid_loader = DataLoader(valid_ds, batch_size=4 * args.batch_size, sampler=valid_sampler)

    model = ESMM(args.n_users, args.n_items, args.n_cats).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                                   compression=hvd.Compression.fp16)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    for epoch in range(args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        for step, (u, i, c, click, buy) in enumerate(train_loader):
            u, i, c, click, buy = (t.to(device) for t in (u, i, c, click, buy))
            p_ctr, p_ctcvr = model(u, i, c)
            loss = F.binary_cross_entropy(p_ctr, click) + \
                args.ctcvr_weight * F.binary_cross_entropy(p_ctcvr, buy)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 200 == 0 and hvd.rank() == 0:
                logger.info("epoch %d step %d loss %.5f", epoch, step, loss.item())

        val = validate(model, valid_loader, device)
        if hvd.rank() == 0:
            logger.info("epoch %d valid ctr_logloss %.5f ctcvr_logloss %.5f", epoch, val[0], val[1])
            os.makedirs(args.save_dir, exist_ok=True)
            torch.save(model.state_dict(), os.path.join(args.save_dir, f"esmm_ep{epoch}.pt"))


if __name__ == "__main__":
    main()
