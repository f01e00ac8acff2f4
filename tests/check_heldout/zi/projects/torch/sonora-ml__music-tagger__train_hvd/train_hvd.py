"""Multi-label music auto-tagging (MagnaTagATune top-50) with a small spectrogram transformer.

Distributed with Horovod:  horovodrun -np 4 python train_hvd.py configs/mtat.json
"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Subset

from tagger import load_config
from tagger import dist
from tagger.data import MelChunks
from tagger.metrics import mean_average_precision
from tagger.model import SpectrogramTransformer


def evaluate(model, loader, device):
    model.eval()
    scores, targets = [], []
    with torch.no_grad():
        for mel, y in loader:
            scores.append(torch.sigmoid(model(mel.to(device))).cpu())
            targets.append(y)
    scores = dist.gather(torch.cat(scores), "val_scores").numpy()
    targets = dist.gather(torch.cat(targets), "val_targets").numpy()
    return mean_average_precision(scores, targets)


def train(cfg):
    device = dist.setup()
    torch.manual_seed(cfg.seed)

    train_set = MelChunks(cfg.train_index, cfg.tags, cfg.crop_frames, train=True)
    valid_set = MelChunks(cfg.valid_index, cfg.tags, cfg.crop_frames, train=False)
    my_valid = Subset(valid_set, list(range(dist.hvd.rank(), len(valid_set), dist.hvd.size())))
    valid_loader = DataLoader(my_valid, batch_size=cfg.batch_size, num_workers=2)

    model = SpectrogramTransformer(cfg.n_mels, len(cfg.tags), cfg.crop_frames, cfg.patch,
                                   cfg.dim, cfg.depth).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=dist.scaled_lr(cfg.base_lr), weight_decay=0.05)
    steps_per_epoch = (len(train_set) // dist.hvd.size()) // cfg.batch_size
    warmup = max(1, cfg.warmup_epochs * steps_per_epoch)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / warmup))

    dist.sync_initial_state(model, optimizer)
    optimizer = dist.hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    best_map, stale = -1.0, 0
    for epoch in range(cfg.epochs):
        shard = Subset(train_set, dist.shard_indices(len(train_set), cfg.seed, epoch))
        loader = DataLoader(shard, batch_size=cfg.batch_size, shuffle=False, drop_last=True, num_workers=4)
        model.train()
        running = 0.0
        for mel, y in loader:
            mel, y = mel.to(device), y.to(device)
            loss = F.binary_cross_entropy_with_logits(model(mel), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            running += loss.item()

        val_map = evaluate(model, valid_loader, device)
        if dist.is_main():
            print(f"epoch {epoch + 1}/{cfg.epochs} train_bce(rank0) {running / max(len(loader), 1):.4f} "
                  f"val_mAP {val_map:.4f}", flush=True)
        if val_map > best_map:
            best_map, stale = val_map, 0
            if dist.is_main():
                os.makedirs(cfg.out_dir, exist_ok=True)
                torch.save({"epoch": epoch, "model": model.state_dict(), "val_map": val_map,
                            "tags": cfg.tags}, os.path.join(cfg.out_dir, "best.pt"))
        else:
            stale += 1
            if stale >= cfg.patience:
                break
    return best_map


if __name__ == "__main__":
    cfg = load_config(sys.argv[1:])
    if not cfg.tags:
        sys.exit("config must list the tags to train on")
    train(cfg)
