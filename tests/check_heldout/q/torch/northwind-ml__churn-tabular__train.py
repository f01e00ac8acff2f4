#!/usr/bin/env python
"""Train the churn MLP on N ranks.

    horovodrun -np 8 -H node1:4,node2:4 python scripts/train.py --epochs 20
"""
import logging
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

import torch  # noqa: E402

from churnkit import distributed as dist  # noqa: E402
from churnkit.config import parse_config  # noqa: E402
from churnkit.data import load_splits, make_loader, rank_slice  # noqa: E402
from churnkit.model import build_model  # noqa: E402
from churnkit.trainer import CheckpointHook, LogHook, Trainer  # noqa: E402


def main():
    cfg = parse_config()
    device = dist.setup()
    world_size, rank = dist.world()
    logging.basicConfig(level=logging.INFO if dist.is_main() else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(message)s")
    torch.manual_seed(cfg.seed)

    train_arrays, val_arrays = load_splits(cfg.data_path, cfg.val_fraction, cfg.seed)
    per_rank_batch = cfg.global_batch // (world_size * cfg.accum_steps)
    train_loader = make_loader(rank_slice(train_arrays, world_size, rank), per_rank_batch,
                               shuffle=True, seed=cfg.seed + rank)
    val_loader = make_loader(rank_slice(val_arrays, world_size, rank), 1024, shuffle=False)

    model = build_model("mlp", n_features=train_arrays[0].shape[1], hidden=cfg.hidden,
                        dropout=cfg.dropout).to(device)
    # lr is tuned for the fixed global batch, so it is not multiplied by the number of ranks
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    optimizer = dist.wrap_optimizer(optimizer, model, accum_steps=cfg.accum_steps)
    dist.sync_initial_state(model, optimizer)

    trainer = Trainer(model, optimizer, cfg, device,
                      hooks=[LogHook(), CheckpointHook(cfg.output_dir)])
    trainer.fit(train_loader, val_loader, cfg.epochs)


if __name__ == "__main__":
    main()
