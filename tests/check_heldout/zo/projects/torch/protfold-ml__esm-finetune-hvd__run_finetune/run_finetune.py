#!/usr/bin/env python3
"""Fine-tune a protein encoder on DeepLoc localisation, one CV fold, Horovod data parallel."""
import logging
import os

import numpy as np
import torch
import horovod.torch as hvd

from protlm.alphabet import Alphabet
from protlm.ckpt import load_weights, save_checkpoint
from protlm.config import parse_config
from protlm.data import LOCATIONS, batches, read_fasta, shard, split_folds
from protlm.model import ProteinEncoder, focal_loss

log = logging.getLogger(__name__)


def class_alpha(records, n_classes):
    counts = np.bincount([r[2] for r in records], minlength=n_classes).astype(np.float32)
    alpha = counts.sum() / np.maximum(counts, 1.0)
    return torch.tensor(alpha / alpha.mean())


def run(cfg):
    hvd.init()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    if hvd.rank() != 0:
        log.setLevel(logging.WARNING)
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")
    torch.manual_seed(cfg.seed)

    alphabet = Alphabet()
    records = read_fasta(cfg.fasta)
    train_recs, val_recs = split_folds(records, cfg.n_folds, cfg.fold)
    my_train, my_val = shard(train_recs, hvd.rank(), hvd.size()), shard(val_recs, hvd.rank(), hvd.size())
    log.info("fold %d: %d train / %d val sequences, %d per worker", cfg.fold, len(train_recs),
             len(val_recs), len(my_train))

    model = ProteinEncoder(alphabet.size, cfg.dim, cfg.layers, n_classes=len(LOCATIONS))
    if cfg.pretrained:
        missing = model.load_state_dict(torch.load(cfg.pretrained, map_location="cpu"), strict=False)
        log.info("loaded %s (missing: %s)", cfg.pretrained, missing.missing_keys)
    model.to(device)
    alpha = class_alpha(train_recs, len(LOCATIONS)).to(device)

    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    steps = max(1, len(my_train) // cfg.batch_size)
    sched = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=cfg.lr, total_steps=steps * cfg.epochs,
                                                pct_start=0.1)
    scaler = torch.amp.GradScaler("cuda", enabled=cfg.amp and use_cuda)

    for epoch in range(cfg.epochs):
        model.train()
        for tokens, labels in batches(my_train, cfg.batch_size, alphabet, shuffle=True, seed=cfg.seed + epoch):
            tokens, labels = tokens.to(device), torch.tensor(labels, device=device)
            optimizer.zero_grad()
            with torch.autocast("cuda", enabled=cfg.amp and use_cuda):
                loss = focal_loss(model(tokens), labels, cfg.focal_gamma, alpha)
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.clip)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
            sched.step()

        model.eval()
        correct = total = 0
        loss_sum = 0.0
        with torch.no_grad():
            for tokens, labels in batches(my_val, cfg.batch_size, alphabet):
                labels = torch.tensor(labels, device=device)
                logits = model(tokens.to(device))
                loss_sum += focal_loss(logits, labels, cfg.focal_gamma).item() * len(labels)
                correct += (logits.argmax(-1) == labels).sum().item()
                total += len(labels)
        sums = hvd.allreduce(torch.tensor([loss_sum, correct, total], dtype=torch.float64),
                             op=hvd.Sum, name="val_sums")
        val_loss, val_acc = (sums[0] / sums[2]).item(), (sums[1] / sums[2]).item()
        log.info("epoch %d val_loss %.4f val_acc %.4f", epoch, val_loss, val_acc)
        save_checkpoint(os.path.join(cfg.out_dir, f"fold{cfg.fold}", f"epoch{epoch:03d}.pt"),
                        model, optimizer, epoch, {"val_loss": val_loss, "val_acc": val_acc})


if __name__ == "__main__":
    run(parse_config())
