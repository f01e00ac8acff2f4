# Synchronous advantage actor-critic (A2C) with separate actor / critic networks and optimizers.
# Each Horovod worker runs its own vector of environments; gradients are averaged across workers.
import argparse
import time

import gymnasium as gym
import horovod.torch as hvd
import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Categorical


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--env", default="CartPole-v1")
    ap.add_argument("--num-envs", type=int, default=8)
    ap.add_argument("--rollout", type=int, default=32)
    ap.add_argument("--updates", type=int, default=5000)
    ap.add_argument("--actor-lr", type=float, default=7e-4)
    ap.add_argument("--critic-lr", type=float, default=1e-3)
    ap.add_argument("--gamma", type=float, default=0.99)
    ap.add_argument("--ent-coef", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--save", default="a2c.pt")
    return ap.parse_args()


def mlp(inp, out, hidden=128):
    return nn.Sequential(nn.Linear(inp, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                         nn.Linear(hidden, out))


def make_env(name, seed):
    def thunk():
        env = gym.make(name)
        env = gym.wrappers.RecordEpisodeStatistics(env)
        env.action_space.seed(seed)
        return env
    return thunk


def main():
    args = get_args()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)

    envs = gym.vector.SyncVectorEnv([make_env(args.env, args.seed + i) for i in range(args.num_envs)])
    obs_dim = envs.single_observation_space.shape[0]
    n_act = envs.single_action_space.n

    actor = mlp(obs_dim, n_act).to(device)
    critic = mlp(obs_dim, 1).to(device)
    actor_opt = torch.optim.Adam(actor.parameters(), lr=args.actor_lr * hvd.size())
    critic_opt = torch.optim.Adam(critic.parameters(), lr=args.critic_lr * hvd.size())
    actor_opt = hvd.DistributedOptimizer(
        actor_opt, named_parameters=[("actor." + n, p) for n, p in actor.named_parameters()])
    critic_opt = hvd.DistributedOptimizer(
        critic_opt, named_parameters=[("critic." + n, p) for n, p in critic.named_parameters()])

    hvd.broadcast_parameters(actor.named_parameters(), root_rank=0)
    hvd.broadcast_parameters(critic.named_parameters(), root_rank=0)

    obs, _ = envs.reset(seed=args.seed)
    obs = torch.as_tensor(obs, dtype=torch.float32, device=device)
    finished = []
    t0 = time.time()
    for update in range(args.updates):
        logps, values, rewards, dones, ents = [], [], [], [], []
        for _ in range(args.rollout):
            dist = Categorical(logits=actor(obs))
            act = dist.sample()
            nxt, rew, term, trunc, info = envs.step(act.cpu().numpy())
            logps.append(dist.log_prob(act))
            ents.append(dist.entropy())
            values.append(critic(obs).squeeze(-1))
            rewards.append(torch.as_tensor(rew, dtype=torch.float32, device=device))
            dones.append(torch.as_tensor(np.logical_or(term, trunc), dtype=torch.float32, device=device))
            if "episode" in info:
                finished.extend(info["episode"]["r"][info["_episode"]].tolist())
            obs = torch.as_tensor(nxt, dtype=torch.float32, device=device)

        with torch.no_grad():
            ret = critic(obs).squeeze(-1)
        returns = []
        for r, d in zip(reversed(rewards), reversed(dones)):
            ret = r + args.gamma * ret * (1.0 - d)
            returns.insert(0, ret)
        returns, values = torch.stack(returns), torch.stack(values)
        adv = (returns - values).detach()

        actor_loss = -(torch.stack(logps) * adv).mean() - args.ent_coef * torch.stack(ents).mean()
        critic_loss = 0.5 * (returns - values).pow(2).mean()

        actor_opt.zero_grad()
        actor_loss.backward()
        actor_opt.step()
        critic_opt.zero_grad()
        critic_loss.backward()
        critic_opt.step()

        if update % 100 == 0:
            local = float(np.mean(finished)) if finished else 0.0
            mean_ret = hvd.allreduce(torch.tensor(local), name="episodic_return").item()
            finished.clear()
            if hvd.rank() == 0:
                print(f"update {update} return {mean_ret:.1f} ({time.time() - t0:.0f}s)")
                torch.save({"actor": actor.state_dict(), "critic": critic.state_dict()}, args.save)


if __name__ == "__main__":
    main()
