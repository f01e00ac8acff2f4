#!/usr/bin/env python3
# ACT-style action-chunking transformer for bimanual demos, Horovod data parallel.
#
#   horovodrun -np 8 python train_act.py --config configs/transfer_cube.yaml
#
# Episodes are split across workers by index; every worker runs the same number of
# steps per epoch (the smallest shard decides), so allreduces never go out of step.
import argparse
import glob
import math
import os
from dataclasses import asdict, dataclass

import h5py
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
import horovod.torch as hvd


@dataclass
class Cfg:
    dataset_dir: str = "data/sim_transfer_cube"
    synthetic: int = 0
    chunk: int = 20
    hidden: int = 256
    layers: int = 4
    heads: int = 8
    batch_size: int = 8
    lr: float = 1e-5
    kl_weight: float = 10.0
    epochs: int = 2000
    save_every: int = 200
    eval_episodes: int = 50
    seed: int = 0
    ckpt_dir: str = "ckpts/act"
    resume: str = ""


def load_cfg():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=None)
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE")
    a = ap.parse_args()
    d = asdict(Cfg())
    if a.config:
        with open(a.config) as f:
            d.update(yaml.safe_load(f) or {})
    for kv in a.set:
        k, v = kv.split("=", 1)
        d[k] = type(d[k])(v)
    return Cfg(**d)


def read_episodes(cfg):
    if cfg.synthetic:
        rng = np.random.default_rng(cfg.seed)
        return [(rng.normal(size=(400, 14)).astype(np.float32), rng.normal(size=(400, 14)).astype(np.float32))
                for _ in range(cfg.synthetic)]
    eps = []
    for path in sorted(glob.glob(os.path.join(cfg.dataset_dir, "episode_*.hdf5"))):
        with h5py.File(path, "r") as f:
            eps.append((f["/observations/qpos"][()].astype(np.float32), f["/action"][()].astype(np.float32)))
    return eps


class ChunkSampler:
    def __init__(self, episodes, chunk, qmean, qstd, amean, astd, seed):
        self.eps, self.chunk = episodes, chunk
        self.qm, self.qs, self.am, self.as_ = qmean, qstd, amean, astd
        self.rng = np.random.default_rng(seed)

    def batch(self, n):
        qs, acts, pads = [], [], []
        for _ in range(n):
            q, a = self.eps[self.rng.integers(len(self.eps))]
            t = self.rng.integers(len(q))
            seg = a[t:t + self.chunk]
            pad = np.zeros(self.chunk, bool)
            pad[len(seg):] = True
            seg = np.concatenate([seg, np.zeros((self.chunk - len(seg), a.shape[1]), np.float32)])
            qs.append((q[t] - self.qm) / self.qs)
            acts.append((seg - self.am) / self.as_)
            pads.append(pad)
        return map(torch.from_numpy, (np.stack(qs), np.stack(acts).astype(np.float32), np.stack(pads)))


class ACTPolicy(nn.Module):
    def __init__(self, qdim, adim, chunk, hidden, layers, heads, latent=32):
        super().__init__()
        self.latent = latent
        self.enc_in = nn.Linear(adim, hidden)
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(hidden, heads, 4 * hidden, batch_first=True), 2)
        self.to_latent = nn.Linear(hidden, 2 * latent)
        self.q_in = nn.Linear(qdim, hidden)
        self.z_in = nn.Linear(latent, hidden)
        self.queries = nn.Parameter(torch.randn(chunk, hidden) * 0.02)
        self.dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(hidden, heads, 4 * hidden, batch_first=True), layers)
        self.out = nn.Linear(hidden, adim)

    def forward(self, qpos, actions=None):
        B = qpos.shape[0]
        if actions is not None:
            h = self.enc(self.enc_in(actions)).mean(1)
            mu, logvar = self.to_latent(h).chunk(2, -1)
            z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        else:
            mu = logvar = None
            z = torch.zeros(B, self.latent, device=qpos.device)
        memory = torch.stack([self.q_in(qpos), self.z_in(z)], 1)
        return self.out(self.dec(self.queries.expand(B, -1, -1), memory)), mu, logvar


class CubeTransferStub:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def rollout(self, policy, qm, qs, am, as_, device, steps=100):
        q = self.rng.normal(size=14).astype(np.float32)
        target = self.rng.normal(size=14)
        for _ in range(steps // 20):
            x = torch.from_numpy((q - qm) / qs).to(device)[None]
            plan = policy(x)[0][0].cpu().numpy() * as_ + am
            q = (q + 0.05 * np.tanh(plan).sum(0)).astype(np.float32)
        return float(np.linalg.norm(q - target) < 3.5)


def main():
    cfg = load_cfg()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    rank, world = hvd.rank(), hvd.size()

    episodes = read_episodes(cfg)
    allq = np.concatenate([q for q, _ in episodes])
    alla = np.concatenate([a for _, a in episodes])
    stats = (allq.mean(0), allq.std(0).clip(1e-2), alla.mean(0), alla.std(0).clip(1e-2))
    mine = episodes[rank::world]
    sampler = ChunkSampler(mine, cfg.chunk, *stats, seed=cfg.seed * 1000 + rank)
    local_steps = torch.tensor(sum(len(q) for q, _ in mine) // cfg.batch_size)
    steps_per_epoch = max(1, int(hvd.allreduce(local_steps, op=hvd.Min, name="steps")))

    torch.manual_seed(cfg.seed + rank)
    policy = ACTPolicy(allq.shape[1], alla.shape[1], cfg.chunk, cfg.hidden, cfg.layers, cfg.heads).to(device)
    # Adam + sqrt scaling works better than linear for ACT in our sweeps
    opt = torch.optim.AdamW(policy.parameters(), lr=cfg.lr * math.sqrt(world), weight_decay=1e-4)

    start = 0
    blob = None
    if rank == 0 and cfg.resume:
        blob = torch.load(cfg.resume, map_location="cpu", weights_only=False)
    blob = hvd.broadcast_object(blob, root_rank=0, name="resume")
    if blob is not None:
        policy.load_state_dict(blob["policy"])
        opt.load_state_dict(blob["opt"])
        start = blob["epoch"] + 1
    else:
        policy.load_state_dict(hvd.broadcast_object(policy.state_dict(), root_rank=0, name="init"))

    opt = hvd.DistributedOptimizer(opt, named_parameters=policy.named_parameters())

    for epoch in range(start, cfg.epochs):
        policy.train()
        for _ in range(steps_per_epoch):
            q, a, pad = (t.to(device) for t in sampler.batch(cfg.batch_size))
            pred, mu, logvar = policy(q, a)
            l1 = (F.l1_loss(pred, a, reduction="none") * ~pad[..., None]).mean()
            kl = (-0.5 * (1 + logvar - mu.pow(2) - logvar.exp())).sum(-1).mean()
            loss = l1 + cfg.kl_weight * kl
            opt.zero_grad()
            loss.backward()
            opt.step()

        if (epoch + 1) % cfg.save_every == 0 or epoch + 1 == cfg.epochs:
            policy.eval()
            with torch.no_grad():
                wins = [CubeTransferStub(10_000 + i).rollout(policy, *stats, device)
                        for i in range(rank, cfg.eval_episodes, world)]
            wins = sum(hvd.allgather_object(wins), [])
            if rank == 0:
                print(f"epoch {epoch + 1}: l1 {l1.item():.4f} kl {kl.item():.4f} "
                      f"success {np.mean(wins):.3f} over {len(wins)} episodes", flush=True)
                os.makedirs(cfg.ckpt_dir, exist_ok=True)
                torch.save({"policy": policy.state_dict(), "opt": opt.state_dict(), "epoch": epoch,
                            "stats": stats, "cfg": asdict(cfg)},
                           os.path.join(cfg.ckpt_dir, f"policy_epoch{epoch + 1}.ckpt"))


if __name__ == "__main__":
    main()
