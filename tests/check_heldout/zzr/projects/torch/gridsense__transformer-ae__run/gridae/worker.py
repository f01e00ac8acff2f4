import logging
import os

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from . import dist_utils
from .evaluate import global_threshold, precision_recall_f1, window_errors
from .model import TransformerAE

logger = logging.getLogger(__name__)


def _windows(path, seq_len):
    d = np.load(path)
    x = d["x"].astype(np.float32)
    n = (len(x) // seq_len) * seq_len
    xw = torch.from_numpy(x[:n].reshape(-1, seq_len, x.shape[1]))
    y = d["y"][:n].reshape(-1, seq_len).max(1) if "y" in d else np.zeros(len(xw), np.int64)
    return TensorDataset(xw, torch.from_numpy(y.astype(np.int64)))


def train_worker(cfg):
    device = dist_utils.setup()
    torch.manual_seed(cfg.seed)
    train_ds = _windows(os.path.join(cfg.data_root, "substations_train.npz"), cfg.seq_len)
    test_ds = _windows(os.path.join(cfg.data_root, "substations_test.npz"), cfg.seq_len)
    sampler = dist_utils.make_sampler(train_ds)
    train_loader = DataLoader(train_ds, batch_size=cfg.batch_size, sampler=sampler)
    test_loader = DataLoader(test_ds, batch_size=256, sampler=dist_utils.make_sampler(test_ds, False))

    model = TransformerAE(train_ds.tensors[0].shape[-1], d_model=cfg.d_model).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr * dist_utils.world_size())
    optimizer = dist_utils.wrap_optimizer(optimizer, model)
    dist_utils.sync_model(model, optimizer)

    for epoch in range(cfg.epochs):
        model.train()
        sampler.set_epoch(epoch)
        for x, _ in train_loader:
            x = x.to(device)
            optimizer.zero_grad()
            loss = F.mse_loss(model(x), x)
            loss.backward()
            optimizer.step()
        if dist_utils.is_master():
            logger.info("epoch %d last-batch loss %.5f", epoch, loss.item())
            torch.save(model.state_dict(), os.path.join(cfg.out_dir, "transformer_ae.pt"))

    thr = global_threshold(window_errors(model, train_loader, device)[0], cfg.k)
    p, r, f1 = precision_recall_f1(*window_errors(model, test_loader, device), thr)
    if dist_utils.is_master():
        logger.info("thr %.5f precision %.3f recall %.3f f1 %.3f", thr, p, r, f1)
    return f1
