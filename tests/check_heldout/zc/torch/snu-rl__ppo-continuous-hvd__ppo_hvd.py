# PPO (clipped) for continuous control, data-parallel over Horovod workers.
# Each worker collects its own rollouts; gradients are averaged by Horovod.
# Run: horovodrun -np 8 -H node1:4,node2:4 python ppo_hvd.py --env-steps 2000000
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd


class Reacher1D:
    """Minimal continuous task: drive x to a random target; obs = (x, v, target)."""

    def __init__(self, seed):
        self.rng = np.random.RandomState(seed)

    def reset(self):
        self.x, self.v, self.t = 0.0, 0.0, 0
        self.target = self.rng.uniform(-1, 1)
        return np.array([self.x, self.v, self.target], dtype=np.float32)

    def step(self, a):
        a = float(np.clip(a, -1, 1))
        self.v = 0.95 * self.v + 0.05 * a
        self.x += self.v
        self.t += 1
        r = -abs(self.x - self.target) - 0.01 * a * a
        done = self.t >= 200
        return np.array([self.x, self.v, self.target], dtype=np.float32), r, done


def mlp(i, o, h=64):
    return nn.Sequential(nn.Linear(i, h), nn.Tanh(), nn.Linear(h, h), nn.Tanh(), nn.Linear(h, o))


class Actor(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.mu = mlp(obs_dim, act_dim)
        self.log_std = nn.Parameter(torch.full((act_dim,), -0.5))

    def dist(self, obs):
        return torch.distributions.Normal(self.mu(obs), self.log_std.exp())


def gae(rews, vals, dones, last_val, gamma=0.99, lam=0.95):
    adv = np.zeros_like(rews)
    last = 0.0
    for t in reversed(range(len(rews))):
        nxt = last_val if t == len(rews) - 1 else vals[t + 1]
        delta = rews[t] + gamma * nxt * (1 - dones[t]) - vals[t]
        last = delta + gamma * lam * (1 - dones[t]) * last
        adv[t] = last
    return adv, adv + vals


parser = argparse.ArgumentParser()
parser.add_argument('--env-steps', type=int, default=2_000_000)
parser.add_argument('--horizon', type=int, default=2048)
parser.add_argument('--epochs', type=int, default=10)
parser.add_argument('--minibatch', type=int, default=64)
parser.add_argument('--lr', type=float, default=3e-4)
parser.add_argument('--clip', type=float, default=0.2)
parser.add_argument('--seed', type=int, default=0)
parser.add_argument('--save-dir', default='checkpoints')
args = parser.parse_args()

hvd.init()
torch.cuda.set_device(hvd.rank()) if torch.cuda.is_available() else None
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

# different seed per worker so that the workers explore differently
seed = args.seed + hvd.rank()
torch.manual_seed(seed)
np.random.seed(seed)
env = Reacher1D(seed)

actor = Actor(3, 1).to(device)
critic = mlp(3, 1).to(device)
optimizer = torch.optim.Adam(list(actor.parameters()) + list(critic.parameters()), lr=args.lr * hvd.size())
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=actor.named_parameters())

n_updates = args.env_steps // (args.horizon * hvd.size())
obs = env.reset()
ep_ret, ep_rets = 0.0, []
t0 = time.time()
for update in range(n_updates):
    buf_o, buf_a, buf_lp, buf_r, buf_v, buf_d = [], [], [], [], [], []
    for _ in range(args.horizon):
        o = torch.as_tensor(obs, device=device)
        with torch.no_grad():
            pd = actor.dist(o)
            a = pd.sample()
            v = critic(o).item()
        nobs, r, done = env.step(a.item())
        buf_o.append(obs); buf_a.append(a.cpu().numpy()); buf_lp.append(pd.log_prob(a).sum().item())
        buf_r.append(r); buf_v.append(v); buf_d.append(float(done))
        ep_ret += r
        obs = nobs
        if done:
            ep_rets.append(ep_ret)
            ep_ret, obs = 0.0, env.reset()
    with torch.no_grad():
        last_v = critic(torch.as_tensor(obs, device=device)).item()
    adv, ret = gae(np.array(buf_r, np.float32), np.array(buf_v, np.float32), np.array(buf_d, np.float32), last_v)
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    O = torch.as_tensor(np.array(buf_o), device=device)
    A = torch.as_tensor(np.array(buf_a), device=device)
    LP = torch.as_tensor(buf_lp, device=device)
    ADV = torch.as_tensor(adv, device=device)
    RET = torch.as_tensor(ret, device=device)

    for _ in range(args.epochs):
        for idx in np.array_split(np.random.permutation(args.horizon), args.horizon // args.minibatch):
            pd = actor.dist(O[idx])
            ratio = (pd.log_prob(A[idx]).sum(-1) - LP[idx]).exp()
            pg_loss = -torch.min(ratio * ADV[idx], ratio.clamp(1 - args.clip, 1 + args.clip) * ADV[idx]).mean()
            v_loss = (critic(O[idx]).squeeze(-1) - RET[idx]).pow(2).mean()
            optimizer.zero_grad()
            (pg_loss + 0.5 * v_loss).backward()
            optimizer.step()

    mean_ret = hvd.allreduce(torch.tensor(np.mean(ep_rets[-10:]) if ep_rets else 0.0), name='ep_ret').item()
    if hvd.rank() == 0:
        print(f'update {update}/{n_updates}  return {mean_ret:.2f}  {time.time() - t0:.0f}s')
        if update % 50 == 0:
            os.makedirs(args.save_dir, exist_ok=True)
            torch.save({'actor': actor.state_dict(), 'critic': critic.state_dict()},
                       os.path.join(args.save_dir, f'ppo_{update}.pt'))
