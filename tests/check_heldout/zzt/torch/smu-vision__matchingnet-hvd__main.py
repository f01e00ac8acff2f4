import argparse
import json
import logging

import numpy as np
import torch
import horovod.torch as hvd

from engine import Trainer, init_distributed
from engine.episodes import EpisodeSampler
from models import MatchingNetwork

DEFAULTS = {
    "data": "data/mini_imagenet84.npz",
    "n_way": 5, "k_shot": 1, "n_query": 15,
    "episodes_per_rank": 500, "val_episodes_per_rank": 100,
    "epochs": 50, "lr": 1e-3, "log_every": 50,
    "out_dir": "output/matchingnet",
}


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", help="JSON file overriding DEFAULTS")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    cfg = dict(DEFAULTS)
    if args.config:
        with open(args.config) as f:
            cfg.update(json.load(f))
    return cfg, args.seed


def main():
    logging.basicConfig(level=logging.INFO)
    cfg, seed = parse()
    device = init_distributed()
    torch.manual_seed(seed)

    data = np.load(cfg["data"])
    train_sampler = EpisodeSampler(data["x_train"], data["y_train"], cfg["n_way"], cfg["k_shot"],
                                   cfg["n_query"], seed=seed + 100 * hvd.rank())
    val_sampler = EpisodeSampler(data["x_val"], data["y_val"], cfg["n_way"], cfg["k_shot"],
                                 cfg["n_query"], seed=seed + 100 * hvd.rank() + 1)

    model = MatchingNetwork(in_ch=data["x_train"].shape[1]).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"] * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    Trainer(model, optimizer, train_sampler, val_sampler, cfg, device).fit()


if __name__ == "__main__":
    main()
