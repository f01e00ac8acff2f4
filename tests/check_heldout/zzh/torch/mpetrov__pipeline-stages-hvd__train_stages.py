#!/usr/bin/env python3
# Two-stage MLP-Mixer regression model. The model was split into two stages when we tried
# pipeline parallelism; we went back to pure data parallelism (Horovod) but kept the
# per-stage checkpoint files because the downstream tools load stage0/stage1 separately.
import argparse
import json
import logging
import os
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint_sequential
import horovod.torch as hvd

log = logging.getLogger("stages")


@dataclass
class Opts:
    data: str = "data/features.npz"
    ckpt_dir: str = "checkpoints"
    global_batch: int = 1024
    lr: float = 1e-3
    epochs: int = 30
    width: int = 512
    depth_per_stage: int = 6
    ckpt_segments: int = 3
    seed: int = 7


def mlp_block(width):
    return nn.Sequential(nn.LayerNorm(width), nn.Linear(width, 2 * width), nn.GELU(), nn.Linear(2 * width, width))


class Stage(nn.Module):
    def __init__(self, d_in, width, depth, d_out=None, segments=1):
        super().__init__()
        self.proj = nn.Linear(d_in, width)
        self.body = nn.Sequential(*[mlp_block(width) for _ in range(depth)])
        self.head = nn.Linear(width, d_out) if d_out else nn.Identity()
        self.segments = segments

    def forward(self, x):
        x = self.proj(x)
        if self.training and self.segments > 1:
            x = x + checkpoint_sequential(self.body, self.segments, x, use_reentrant=False)
        else:
            x = x + self.body(x)
        return self.head(x)


def stage_paths(ckpt_dir):
    return [os.path.join(ckpt_dir, f"stage{i}.pt") for i in range(2)], os.path.join(ckpt_dir, "meta.json")


def save_stages(stages, opt, epoch, ckpt_dir):
    paths, meta = stage_paths(ckpt_dir)
    os.makedirs(ckpt_dir, exist_ok=True)
    for stage, path in zip(stages, paths):
        torch.save(stage.state_dict(), path)
    torch.save(opt.state_dict(), os.path.join(ckpt_dir, "optim.pt"))
    with open(meta, "w") as fh:
        json.dump({"epoch": epoch}, fh)


def load_stages(stages, opt, ckpt_dir):
    paths, meta = stage_paths(ckpt_dir)
    if not os.path.exists(meta):
        return 0
    for stage, path in zip(stages, paths):
        stage.load_state_dict(torch.load(path, map_location="cpu"))
    opt.load_state_dict(torch.load(os.path.join(ckpt_dir, "optim.pt"), map_location="cpu"))
    with open(meta) as fh:
        return json.load(fh)["epoch"] + 1


def run(o: Opts):
    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.ERROR,
                        format="%(asctime)s %(levelname)s %(message)s")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    arrays = np.load(o.data)
    x_all = torch.from_numpy(arrays["x"]).float()
    y_all = torch.from_numpy(arrays["y"]).float()
    n_val = len(x_all) // 10
    x_val, y_val = x_all[:n_val], y_all[:n_val]
    x_tr, y_tr = x_all[n_val:], y_all[n_val:]

    # every rank draws the same permutation, then keeps its own block of it
    g = torch.Generator().manual_seed(o.seed)
    per_rank = len(x_tr) // hvd.size()
    mine = torch.randperm(len(x_tr), generator=g)[hvd.rank() * per_rank:(hvd.rank() + 1) * per_rank]
    x_tr, y_tr = x_tr[mine], y_tr[mine]
    batch = o.global_batch // hvd.size()

    torch.manual_seed(o.seed)
    stages = [Stage(x_all.shape[1], o.width, o.depth_per_stage, segments=o.ckpt_segments),
              Stage(o.width, o.width, o.depth_per_stage, d_out=y_all.shape[1], segments=o.ckpt_segments)]
    model = nn.Sequential(*stages).to(device)
    # global batch is fixed, so the lr is the one tuned for it
    opt = torch.optim.Adam(model.parameters(), lr=o.lr)
    start = load_stages(stages, opt, o.ckpt_dir)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    start = hvd.broadcast_object(start, root_rank=0)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())

    for epoch in range(start, o.epochs):
        model.train()
        g.manual_seed(o.seed + epoch)
        order = torch.randperm(per_rank, generator=g)
        for i in range(0, per_rank - batch + 1, batch):
            idx = order[i:i + batch]
            xb, yb = x_tr[idx].to(device), y_tr[idx].to(device)
            loss = nn.functional.mse_loss(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()

        model.eval()
        with torch.no_grad():
            # validation rows split by rank; sum squared error and counts over all ranks
            vx, vy = x_val[hvd.rank()::hvd.size()].to(device), y_val[hvd.rank()::hvd.size()].to(device)
            sse = ((model(vx) - vy) ** 2).sum().cpu()
            cnt = torch.tensor(float(vy.numel()))
        sse = hvd.allreduce(sse, op=hvd.Sum, name="sse")
        cnt = hvd.allreduce(cnt, op=hvd.Sum, name="cnt")
        log.info("epoch %d train_loss(rank0) %.4f val_mse %.5f", epoch, loss.item(), (sse / cnt).item())
        if hvd.rank() == 0:
            save_stages(stages, opt, epoch, o.ckpt_dir)


def parse() -> Opts:
    o = Opts()
    p = argparse.ArgumentParser()
    for name, default in vars(o).items():
        p.add_argument("--" + name.replace("_", "-"), type=type(default), default=default)
    return Opts(**vars(p.parse_args()))


if __name__ == "__main__":
    run(parse())
