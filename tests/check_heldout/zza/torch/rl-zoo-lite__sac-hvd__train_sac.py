"""Soft Actor-Critic, one environment per Horovod worker, synchronous updates.

    horovodrun -np 4 python train_sac.py --epochs 50
"""
import argparse
import os
import time

import numpy as np
import torch
import horovod.torch as hvd

from sac import Replay, SACAgent, make_env

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=50)
parser.add_argument("--steps-per-epoch", type=int, default=4000)
parser.add_argument("--start-steps", type=int, default=5000)
parser.add_argument("--update-after", type=int, default=1000)
parser.add_argument("--update-every", type=int, default=50)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--lr", type=float, default=3e-4)
parser.add_argument("--replay-size", type=int, default=int(1e6))
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--out", default="out/sac")
args = parser.parse_args()

hvd.init()
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

# every worker explores with its own seed
seed = args.seed + 1000 * hvd.rank()
torch.manual_seed(seed)
np.random.seed(seed)
env, test_env = make_env(seed), make_env(seed + 1)
replay = Replay(env.obs_dim, env.act_dim, args.replay_size, seed=seed)

agent = SACAgent(env.obs_dim, env.act_dim, env.max_torque, lr=args.lr * hvd.size(), device=device)
hvd.broadcast_parameters(agent.actor.state_dict(), root_rank=0)


def evaluate(n_episodes=5):
    rets = []
    for _ in range(n_episodes):
        o, done, ret = test_env.reset(), False, 0.0
        while not done:
            o, r, done = test_env.step(agent.act(o, deterministic=True))
            ret += r
        rets.append(ret)
    return hvd.allreduce(torch.tensor(np.mean(rets)), name="test_return").item()


o, ep_ret, t0 = env.reset(), 0.0, time.time()
total_steps = args.steps_per_epoch * args.epochs
for t in range(total_steps):
    a = np.random.uniform(-env.max_torque, env.max_torque, env.act_dim) if t < args.start_steps else agent.act(o)
    o2, r, done = env.step(a)
    replay.store(o, a, r, o2, float(done))
    o, ep_ret = o2, ep_ret + r
    if done:
        o, ep_ret = env.reset(), 0.0

    if t >= args.update_after and t % args.update_every == 0:
        for _ in range(args.update_every):
            lq, lpi = agent.update(*replay.sample(args.batch_size, device))

    if (t + 1) % args.steps_per_epoch == 0:
        epoch = (t + 1) // args.steps_per_epoch
        test_ret = evaluate()
        if hvd.rank() == 0:
            print(f"epoch {epoch:3d}  test return {test_ret:8.1f}  time {time.time() - t0:.0f}s", flush=True)
            os.makedirs(args.out, exist_ok=True)
            torch.save({"epoch": epoch, **agent.state_dict()}, os.path.join(args.out, "sac.pt"))
