"""
Behaviour cloning baseline for Push-T (low-dim state), multi-GPU with Horovod.

Run:
    horovodrun -np 4 -H localhost:4 python bc_pusht.py --demos demos/pusht_200.pt
"""
import argparse
import math
import os
import random

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


# --------------------------------------------------------------------------- data
class ChunkedDemos(Dataset):
    def __init__(self, episodes, history=2, chunk=8):
        acts = np.concatenate([e["action"] for e in episodes])
        self.a_mean, self.a_std = acts.mean(0), acts.std(0) + 1e-6
        self.items = []
        for e in episodes:
            obs, act = e["obs"], (e["action"] - self.a_mean) / self.a_std
            for t in range(history - 1, len(obs) - chunk):
                self.items.append((obs[t - history + 1:t + 1].reshape(-1), act[t:t + chunk].reshape(-1)))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        o, a = self.items[i]
        return torch.as_tensor(o, dtype=torch.float32), torch.as_tensor(a, dtype=torch.float32)


def load_demos(path):
    if path == "random":
        rng = np.random.default_rng(0)
        return [{"obs": rng.normal(size=(n, 5)), "action": rng.normal(size=(n, 2))}
                for n in rng.integers(50, 150, 60)]
    return torch.load(path, weights_only=False)


# --------------------------------------------------------------------------- model
class MLPPolicy(nn.Module):
    def __init__(self, in_dim, out_dim, width=512, depth=3):
        super().__init__()
        layers = []
        for i in range(depth):
            layers += [nn.Linear(in_dim if i == 0 else width, width), nn.LayerNorm(width), nn.GELU()]
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(width, out_dim)

    def forward(self, x):
        return self.head(self.body(x))


class EMA:
    def __init__(self, model, decay=0.999):
        self.decay = decay
        self.shadow = {k: v.detach().clone() for k, v in model.state_dict().items()}

    @torch.no_grad()
    def update(self, model):
        for k, v in model.state_dict().items():
            if v.dtype.is_floating_point:
                self.shadow[k].mul_(self.decay).add_(v, alpha=1 - self.decay)


# --------------------------------------------------------------------------- sim eval
class PushTStub:
    """Replace with gym_pusht when rendering is available."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def reset(self):
        self.block = self.rng.uniform(-1, 1, 2)
        self.agent = self.rng.uniform(-1, 1, 2)
        self.t = 0
        return self.obs()

    def obs(self):
        return np.concatenate([self.agent, self.block, [np.linalg.norm(self.block)]])

    def step(self, a):
        self.t += 1
        self.agent = np.clip(self.agent + 0.05 * np.tanh(a), -1, 1)
        if np.linalg.norm(self.agent - self.block) < 0.1:
            self.block *= 0.9
        done = np.linalg.norm(self.block) < 0.05 or self.t >= 200
        return self.obs(), done


@torch.no_grad()
def evaluate(policy, ds, n_episodes, history, chunk, device):
    policy.eval()
    success = 0
    for ep in range(n_episodes):
        env = PushTStub(seed=100000 + ep)
        frames = [env.reset()] * history
        done = False
        while not done:
            x = torch.as_tensor(np.concatenate(frames[-history:]), dtype=torch.float32, device=device)
            plan = policy(x[None])[0].view(chunk, -1).cpu().numpy() * ds.a_std + ds.a_mean
            for a in plan:
                o, done = env.step(a)
                frames.append(o)
                if done:
                    break
        success += int(np.linalg.norm(env.block) < 0.05)
    policy.train()
    return success / n_episodes


# --------------------------------------------------------------------------- main
def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--demos", default="demos/pusht_200.pt")
    parser.add_argument("--history", type=int, default=2)
    parser.add_argument("--chunk", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=128, help="per worker")
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--ema", type=float, default=0.999, help="EMA decay")
    parser.add_argument("--eval-every", type=int, default=10)
    parser.add_argument("--eval-episodes", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ckpt-dir", default="ckpt")
    args = parser.parse_args()

    hvd.init()
    seed = args.seed + hvd.rank()
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")

    ds = ChunkedDemos(load_demos(args.demos), args.history, args.chunk)
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), seed=args.seed)
    loader = DataLoader(ds, batch_size=args.batch_size, sampler=sampler, num_workers=2, drop_last=True)

    in_dim, out_dim = ds[0][0].numel(), ds[0][1].numel()
    policy = MLPPolicy(in_dim, out_dim).to(device)
    opt = torch.optim.AdamW(policy.parameters(), lr=args.lr, weight_decay=1e-4)
    opt = hvd.DistributedOptimizer(opt, named_parameters=policy.named_parameters())
    total_steps = args.epochs * len(loader)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: 0.5 * (1 + math.cos(math.pi * min(s, total_steps) / total_steps)))
    ema = EMA(policy, decay=args.ema_decay)

    step = 0
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        running = 0.0
        for obs, act in loader:
            obs, act = obs.to(device), act.to(device)
            loss = nn.functional.smooth_l1_loss(policy(obs), act)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            ema.update(policy)
            running += loss.item()
            step += 1
        running = hvd.allreduce(torch.tensor(running / len(loader)), name="train_loss").item()

        if hvd.rank() == 0:
            msg = f"epoch {epoch+1}/{args.epochs} loss {running:.4f} lr {sched.get_last_lr()[0]:.2e}"
            if (epoch + 1) % args.eval_every == 0:
                live = {k: v.clone() for k, v in policy.state_dict().items()}
                policy.load_state_dict(ema.shadow)
                sr = evaluate(policy, ds, args.eval_episodes, args.history, args.chunk, device)
                policy.load_state_dict(live)
                msg += f" | EMA success {sr:.3f}"
                os.makedirs(args.ckpt_dir, exist_ok=True)
                torch.save({"policy": ema.shadow, "a_mean": ds.a_mean, "a_std": ds.a_std,
                            "args": vars(args), "epoch": epoch}, os.path.join(args.ckpt_dir, "bc_ema.pt"))
            print(msg, flush=True)


if __name__ == "__main__":
    main()
