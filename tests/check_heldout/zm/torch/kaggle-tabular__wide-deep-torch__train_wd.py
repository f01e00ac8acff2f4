# Wide & Deep for click prediction (Avazu-style hashed categoricals), Horovod port.
# Wide part = EmbeddingBag over crossed features, deep part = field embeddings + MLP.
# Embedding tables use sparse gradients (SparseAdam), everything else Adam.
import argparse
import logging
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def get_logger(name="wide_deep"):
    logger = logging.getLogger(name)
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter(f"%(asctime)s [worker {hvd.rank()}] %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    return logger


logger = get_logger()


class WideDeep(nn.Module):
    def __init__(self, field_sizes, cross_buckets, emb_dim=16, hidden=(256, 128)):
        super().__init__()
        self.wide = nn.EmbeddingBag(cross_buckets, 1, mode="sum", sparse=True)
        self.embs = nn.ModuleList(nn.Embedding(n, emb_dim, sparse=True) for n in field_sizes)
        layers, d = [], emb_dim * len(field_sizes)
        for h in hidden:
            layers += [nn.Linear(d, h), nn.ReLU(), nn.Dropout(0.1)]
            d = h
        layers.append(nn.Linear(d, 1))
        self.deep = nn.Sequential(*layers)

    def forward(self, fields, crosses):
        deep_in = torch.cat([e(fields[:, i]) for i, e in enumerate(self.embs)], dim=1)
        return (self.wide(crosses) + self.deep(deep_in)).squeeze(1)


def auc_score(y, p):
    order = np.argsort(p)
    r = np.empty(len(p))
    r[order] = np.arange(1, len(p) + 1)
    npos = y.sum()
    nneg = len(y) - npos
    return (r[y == 1].sum() - npos * (npos + 1) / 2) / max(npos * nneg, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default="./avazu_npz")
    ap.add_argument("--batch-size", type=int, default=4096)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--sparse-lr", type=float, default=1e-2)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--ckpt", default="wide_deep.pt")
    args = ap.parse_args()

    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    tr = np.load(os.path.join(args.data_dir, "train.npz"))
    va = np.load(os.path.join(args.data_dir, "valid.npz"))
    field_sizes = [int(v) for v in tr["field_sizes"]]
    train_ds = TensorDataset(torch.from_numpy(tr["fields"]), torch.from_numpy(tr["crosses"]),
                             torch.from_numpy(tr["label"]).float())
    valid_ds = TensorDataset(torch.from_numpy(va["fields"]), torch.from_numpy(va["crosses"]),
                             torch.from_numpy(va["label"]).float())
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
    valid_sampler = DistributedSampler(valid_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler)
    valid_loader = DataLoader(valid_ds, batch_size=args.batch_size, sampler=valid_sampler)

    model = WideDeep(field_sizes, int(tr["cross_buckets"])).to(device)
    sparse_params = [p for n, p in model.named_parameters() if n.startswith(("wide.", "embs."))]
    dense_named = [(n, p) for n, p in model.named_parameters() if n.startswith("deep.")]

    dense_opt = torch.optim.Adam([p for _, p in dense_named], lr=args.lr * hvd.size())
    dense_opt = hvd.DistributedOptimizer(dense_opt, named_parameters=dense_named)
    sparse_opt = torch.optim.SparseAdam(sparse_params, lr=args.sparse_lr * hvd.size())

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(dense_opt, root_rank=0)

    loss_fn = nn.BCEWithLogitsLoss()
    for epoch in range(args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        for i, (f, c, y) in enumerate(train_loader):
            f, c, y = f.to(device), c.to(device), y.to(device)
            dense_opt.zero_grad()
            sparse_opt.zero_grad()
            loss = loss_fn(model(f, c), y)
            loss.backward()
            dense_opt.step()
            sparse_opt.step()
            if i % 100 == 0 and hvd.rank() == 0:
                logger.info("epoch %d it %d loss %.5f", epoch, i, loss.item())

        model.eval()
        preds, labels = [], []
        with torch.no_grad():
            for f, c, y in valid_loader:
                preds.append(torch.sigmoid(model(f.to(device), c.to(device))).cpu())
                labels.append(y)
        preds = hvd.allgather(torch.cat(preds), name="val_preds").numpy()
        labels = hvd.allgather(torch.cat(labels), name="val_labels").numpy()
        if hvd.rank() == 0:
            logger.info("epoch %d valid AUC %.5f", epoch, auc_score(labels, preds))
            torch.save(model.state_dict(), args.ckpt)


if __name__ == "__main__":
    main()
