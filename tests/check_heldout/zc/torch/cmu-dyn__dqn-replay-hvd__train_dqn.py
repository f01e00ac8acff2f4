"""Distributed DQN: each Horovod worker owns an environment and a replay buffer;
the Q-network gradients are averaged across workers every update."""
import argparse

import numpy as np
import torch
import horovod.torch as hvd

from dqn.agent import DQNAgent
from dqn.envs import make_env
from dqn.replay import ReplayBuffer
from dqn.utils import evaluate, linear_eps, save_checkpoint

p = argparse.ArgumentParser()
p.add_argument("--total-steps", type=int, default=100_000, help="env steps per worker")
p.add_argument("--batch-size", type=int, default=64)
p.add_argument("--lr", type=float, default=2.5e-4)
p.add_argument("--buffer", type=int, default=50_000)
p.add_argument("--learning-starts", type=int, default=1000)
p.add_argument("--target-every", type=int, default=1000)
p.add_argument("--eval-every", type=int, default=5000)
p.add_argument("--seed", type=int, default=0)
p.add_argument("--out", default="results/dqn")
args = p.parse_args()

hvd.init()
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
torch.manual_seed(args.seed)
np.random.seed(args.seed)

env = make_env(args.seed)
eval_env = make_env(args.seed + 10_000)
agent = DQNAgent(env.obs_dim, env.n_actions, seed=args.seed)
buffer = ReplayBuffer(args.buffer, env.obs_dim, seed=args.seed)

optimizer = torch.optim.Adam(agent.q.parameters(), lr=args.lr * hvd.size())
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=agent.q.named_parameters())
hvd.broadcast_parameters(agent.q.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)
agent.sync_target()

obs = env.reset()
for step in range(1, args.total_steps + 1):
    action = agent.act(obs, linear_eps(step))
    nxt, reward, done = env.step(action)
    buffer.add(obs, action, reward, nxt, float(done))
    obs = env.reset() if done else nxt

    if step >= args.learning_starts:
        loss = agent.loss(buffer.sample(args.batch_size))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    if step % args.target_every == 0:
        agent.sync_target()
    if step % args.eval_every == 0:
        avg_return = evaluate(agent, eval_env)
        if hvd.rank() == 0:
            print(f"step {step}: eval return (avg over workers) {avg_return:.3f}")
        save_checkpoint(agent, optimizer, step, args.out)
