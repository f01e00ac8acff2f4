import logging
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from ranker.data import batches, load_shard
from ranker.metrics import in_batch_recall
from ranker.model import TwoTower

log = logging.getLogger("ranker")


def train_fn(cfg):
    """Body of one Horovod worker; launched through horovod.run by launch.py."""
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    # different seed per worker so that in-batch negatives differ across workers
    torch.manual_seed(cfg.seed + hvd.rank())
    gen = torch.Generator().manual_seed(cfg.seed + hvd.rank())

    users, items = load_shard(cfg.interactions_path, hvd.rank(), hvd.size())
    n_eval = len(users) // 20
    model = TwoTower(cfg.n_users, cfg.n_items, cfg.dim)

    dense_opt = torch.optim.Adam([p for _, p in model.dense_named_parameters()], lr=cfg.dense_lr * hvd.size())
    dense_opt = hvd.DistributedOptimizer(dense_opt, named_parameters=model.dense_named_parameters())
    sparse_opt = torch.optim.SparseAdam(model.sparse_parameters(), lr=cfg.sparse_lr)

    recall = 0.0
    for epoch in range(cfg.epochs):
        model.train()
        for u, i in batches(users[n_eval:], items[n_eval:], cfg.batch_size, gen):
            dense_opt.zero_grad()
            sparse_opt.zero_grad()
            logits = model(u, i)
            loss = F.cross_entropy(logits, torch.arange(len(u)))
            loss.backward()
            dense_opt.step()
            sparse_opt.step()
        model.eval()
        recall = in_batch_recall(model, users[:n_eval], items[:n_eval], cfg.eval_k, cfg.batch_size)
        if hvd.rank() == 0:
            log.info("epoch %d recall@%d %.4f", epoch, cfg.eval_k, recall)
            os.makedirs(cfg.model_uri, exist_ok=True)
            torch.save(model.state_dict(), os.path.join(cfg.model_uri, f"ranker-e{epoch}.pt"))
    return recall
