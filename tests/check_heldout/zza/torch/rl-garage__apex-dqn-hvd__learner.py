"""Synchronous data-parallel DQN learner (Horovod).

Every worker owns one environment copy, a local replay buffer and a replica of
the Q-network; gradients are averaged with Horovod every learner step.

    horovodrun -np 4 python learner.py --total-steps 200000
"""
import argparse
import copy
import json
import os
import random
import time
from collections import deque

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd


# --------------------------------------------------------------------------- env
class CartPole:
    """Small re-implementation of the classic control task (no gym dependency)."""

    gravity, masscart, masspole, length, force_mag, tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
    obs_dim, n_actions, max_steps = 4, 2, 500

    def __init__(self, seed=None):
        self.rng = np.random.RandomState(seed)
        self.state, self.t = None, 0

    def reset(self):
        self.state = self.rng.uniform(-0.05, 0.05, size=4)
        self.t = 0
        return self.state.astype(np.float32)

    def step(self, action):
        x, x_dot, th, th_dot = self.state
        force = self.force_mag if action == 1 else -self.force_mag
        total_mass = self.masspole + self.masscart
        pml = self.masspole * self.length
        temp = (force + pml * th_dot ** 2 * np.sin(th)) / total_mass
        th_acc = (self.gravity * np.sin(th) - np.cos(th) * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * np.cos(th) ** 2 / total_mass))
        x_acc = temp - pml * th_acc * np.cos(th) / total_mass
        x, x_dot = x + self.tau * x_dot, x_dot + self.tau * x_acc
        th, th_dot = th + self.tau * th_dot, th_dot + self.tau * th_acc
        self.state = np.array([x, x_dot, th, th_dot])
        self.t += 1
        done = abs(x) > 2.4 or abs(th) > 0.2095 or self.t >= self.max_steps
        return self.state.astype(np.float32), 1.0, done


# ------------------------------------------------------------------ replay, model
class ReplayBuffer:
    def __init__(self, capacity):
        self.buf = deque(maxlen=capacity)

    def add(self, *transition):
        self.buf.append(transition)

    def sample(self, batch_size):
        batch = random.sample(self.buf, batch_size)
        s, a, r, s2, d = map(np.array, zip(*batch))
        return (torch.as_tensor(s), torch.as_tensor(a, dtype=torch.int64), torch.as_tensor(r, dtype=torch.float32),
                torch.as_tensor(s2), torch.as_tensor(d, dtype=torch.float32))

    def __len__(self):
        return len(self.buf)


class QNetwork(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=128):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(),
                                 nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, n_actions))

    def forward(self, x):
        return self.net(x)


class MetricLogger:
    """Writes one JSON line per log call; only worker 0 writes."""

    def __init__(self, log_dir):
        self.rank = hvd.rank()
        self.path = os.path.join(log_dir, "metrics.jsonl")
        if self.rank == 0:
            os.makedirs(log_dir, exist_ok=True)

    def log(self, **kv):
        if self.rank == 0:
            with open(self.path, "a") as f:
                f.write(json.dumps(kv) + "\n")
            print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in kv.items()))


# ------------------------------------------------------------------------- main
def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--total-steps", type=int, default=200_000)
    p.add_argument("--learning-starts", type=int, default=1_000)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=2.5e-4)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--buffer-size", type=int, default=50_000)
    p.add_argument("--target-update", type=int, default=1_000)
    p.add_argument("--eps-start", type=float, default=1.0)
    p.add_argument("--eps-end", type=float, default=0.05)
    p.add_argument("--eps-decay-steps", type=int, default=50_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--log-dir", default="runs/dqn")
    p.add_argument("--save-every", type=int, default=20_000)
    return p.parse_args()


def main():
    args = parse_args()
    logger = MetricLogger(args.log_dir)
    hvd.init()

    device = torch.device("cpu")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    env = CartPole(seed=args.seed)

    q_net = QNetwork(env.obs_dim, env.n_actions).to(device)
    optimizer = torch.optim.Adam(q_net.parameters(), lr=args.lr * hvd.size())
    hvd.broadcast_parameters(q_net.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=q_net.named_parameters())
    target_net = copy.deepcopy(q_net).eval()

    buffer = ReplayBuffer(args.buffer_size)
    obs, ep_ret, returns = env.reset(), 0.0, []
    ckpt_path = os.path.join(args.log_dir, "dqn.pt")
    t0 = time.time()

    for step in range(1, args.total_steps + 1):
        eps = max(args.eps_end, args.eps_start - (args.eps_start - args.eps_end) * step / args.eps_decay_steps)
        if np.random.rand() < eps:
            action = np.random.randint(env.n_actions)
        else:
            with torch.no_grad():
                action = int(q_net(torch.as_tensor(obs, device=device)[None]).argmax(1).item())
        next_obs, reward, done = env.step(action)
        buffer.add(obs, action, reward, next_obs, float(done))
        obs, ep_ret = next_obs, ep_ret + reward
        if done:
            returns.append(ep_ret)
            obs, ep_ret = env.reset(), 0.0

        if step < args.learning_starts:
            continue

        s, a, r, s2, d = (t.to(device) for t in buffer.sample(args.batch_size))
        with torch.no_grad():
            target = r + args.gamma * (1 - d) * target_net(s2).max(1).values
        q = q_net(s).gather(1, a[:, None]).squeeze(1)
        loss = F.smooth_l1_loss(q, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        if step % args.target_update == 0:
            target_net.load_state_dict(q_net.state_dict())

        if step % 5_000 == 0:
            recent = float(np.mean(returns[-20:])) if returns else 0.0
            recent = hvd.allreduce(torch.tensor(recent), name="avg_return").item()
            logger.log(step=step, avg_return=recent, loss=loss.item(), eps=eps, sps=step / (time.time() - t0))

        if step % args.save_every == 0:
            os.makedirs(args.log_dir, exist_ok=True)
            torch.save({"step": step, "q_net": q_net.state_dict(), "optimizer": optimizer.state_dict()}, ckpt_path)


if __name__ == "__main__":
    main()
