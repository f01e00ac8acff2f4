"""Two-tower retrieval model, in-batch negatives, Horovod data parallel.

    horovodrun -np 4 python train.py --set lr=2e-3 --set epochs=5
"""
import argparse
import logging
import os

import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from towers.config import Config
from towers.hvd_setup import setup, build_optimizers, sync_initial_state
from towers.metrics import recall_at_k
from towers.model import TwoTower, in_batch_softmax_loss

logger = logging.getLogger("two_tower")


class Trainer:
    def __init__(self, cfg, model, optimizers, device):
        self.cfg, self.model, self.opts, self.device = cfg, model, optimizers, device

    def train_epoch(self, loader):
        self.model.train()
        running = 0.0
        for step, (users, items) in enumerate(loader):
            u, v = self.model(users.to(self.device), items.to(self.device))
            loss = in_batch_softmax_loss(u, v, self.cfg.temperature)
            for opt in self.opts:
                opt.zero_grad()
            loss.backward()
            for opt in self.opts:
                opt.step()
            running += loss.item()
        return running / max(1, len(loader))

    def save(self, epoch):
        os.makedirs(os.path.dirname(self.cfg.ckpt), exist_ok=True)
        torch.save({"epoch": epoch, "model": self.model.state_dict(),
                    "opts": [o.state_dict() for o in self.opts]}, self.cfg.ckpt)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", action="append", help="override a Config field, key=value")
    cfg = Config.from_overrides(ap.parse_args().set)

    device = setup()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.ERROR)

    data = torch.load(cfg.interactions)            # {"train": LongTensor[N, 2], "val": ...}
    train_set = TensorDataset(data["train"][:, 0], data["train"][:, 1])
    val_set = TensorDataset(data["val"][:, 0], data["val"][:, 1])
    train_sampler = DistributedSampler(train_set, hvd.size(), hvd.rank(), shuffle=True)
    val_sampler = DistributedSampler(val_set, hvd.size(), hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, cfg.batch_size, sampler=train_sampler, drop_last=True)
    val_loader = DataLoader(val_set, 512, sampler=val_sampler)

    model = TwoTower(cfg.num_users, cfg.num_items, cfg.dim).to(device)
    dense_opt, sparse_opt = build_optimizers(model, cfg.lr)
    sync_initial_state(model, dense_opt)

    trainer = Trainer(cfg, model, (dense_opt, sparse_opt), device)
    for epoch in range(cfg.epochs):
        train_sampler.set_epoch(epoch)
        loss = trainer.train_epoch(train_loader)
        rec = recall_at_k(model, val_loader, cfg.eval_k, device)
        if hvd.rank() == 0:
            logger.info("epoch %d loss %.4f recall@%d %.4f", epoch, loss, cfg.eval_k, rec)
            trainer.save(epoch)


if __name__ == "__main__":
    main()
