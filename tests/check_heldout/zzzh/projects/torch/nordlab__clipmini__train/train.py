#!/usr/bin/env python
"""Train CLIPMini with Horovod.

    horovodrun -np 8 python train.py --config configs/coco_vitb.json
"""
import argparse
import logging
import os
import time

import torch
import horovod.torch as hvd

from clipmini.config import TrainConfig
from clipmini.data import HashTokenizer, build_train_loader, build_gallery_loader
from clipmini.dist import setup, is_main, contrastive_loss, mean_across_workers
from clipmini.metrics import embed_gallery, recall_at_k
from clipmini.model import CLIPMini

log = logging.getLogger("clipmini")


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default=None)
    p.add_argument("--data-dir", default=None)
    p.add_argument("--epochs", type=int, default=None)
    p.add_argument("--resume", action="store_true")
    return p.parse_args()


def main():
    args = parse_args()
    cfg = TrainConfig.from_json(args.config) if args.config else TrainConfig()
    if args.data_dir:
        cfg.data_dir = args.data_dir
    if args.epochs:
        cfg.epochs = args.epochs

    device = setup()
    torch.manual_seed(cfg.seed)
    logging.basicConfig(level=logging.INFO if is_main() else logging.WARNING,
                        format="%(asctime)s %(message)s")

    tok = HashTokenizer(cfg.vocab_size, cfg.max_len)
    train_loader, sampler = build_train_loader(cfg, tok, hvd.size(), hvd.rank())
    gallery_loader = build_gallery_loader(cfg, tok)
    img_dim = train_loader.dataset.feats.shape[1]

    model = CLIPMini(img_dim, cfg.vocab_size, cfg.embed_dim, cfg.init_temperature).to(device)
    decay = [p for n, p in model.named_parameters() if p.ndim > 1]
    no_decay = [p for n, p in model.named_parameters() if p.ndim <= 1]
    optimizer = torch.optim.AdamW(
        [{"params": decay, "weight_decay": cfg.weight_decay},
         {"params": no_decay, "weight_decay": 0.0}],
        lr=cfg.lr * hvd.size())
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(
        optimizer, T_max=cfg.epochs * len(train_loader))

    start_epoch = 0
    ckpt_path = os.path.join(cfg.out_dir, "last.pt")
    if args.resume and is_main() and os.path.exists(ckpt_path):
        state = torch.load(ckpt_path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        start_epoch = state["epoch"] + 1
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
    scheduler.last_epoch = start_epoch * len(train_loader) - 1 if start_epoch else -1

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    for epoch in range(start_epoch, cfg.epochs):
        sampler.set_epoch(epoch)
        t0, running = time.time(), 0.0
        for step, (feats, ids, _) in enumerate(train_loader):
            img, txt, scale = model(feats.to(device), ids.to(device))
            loss = contrastive_loss(img, txt, scale)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            running += loss.item()
        epoch_loss = mean_across_workers(running / len(train_loader), "epoch_loss")

        img_emb, txt_emb = embed_gallery(model, gallery_loader, device)
        i2t = recall_at_k(img_emb, txt_emb, cfg.recall_ks)
        t2i = recall_at_k(txt_emb, img_emb, cfg.recall_ks)
        log.info("epoch %d loss %.4f temp %.4f i2t %s t2i %s (%.0fs)", epoch, epoch_loss,
                 1.0 / model.logit_scale.exp().item(), i2t, t2i, time.time() - t0)

        if is_main():
            os.makedirs(cfg.out_dir, exist_ok=True)
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict(), "epoch": epoch,
                        "config": cfg.to_dict()}, ckpt_path)


if __name__ == "__main__":
    main()
