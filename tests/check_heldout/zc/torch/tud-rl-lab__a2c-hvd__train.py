"""Synchronous A2C on the point-mass task; each Horovod worker runs its own batch of environments.

    horovodrun -np 4 python train.py --updates 3000
"""
import argparse

import numpy as np
import torch
import horovod.torch as hvd

from rlcommon import dist
from rlcommon.ckpt import save_checkpoint
from rlcommon.envs import make_vec_env
from rlcommon.nets import ActorCritic


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--updates", type=int, default=3000)
    p.add_argument("--n-envs", type=int, default=8)
    p.add_argument("--rollout", type=int, default=16)
    p.add_argument("--lr", type=float, default=7e-4)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--save-every", type=int, default=500)
    p.add_argument("--log-every", type=int, default=50)
    p.add_argument("--out", default="runs/a2c")
    return p.parse_args()


def discounted(rewards, dones, bootstrap, gamma):
    out, ret = [], bootstrap
    for r, d in zip(reversed(rewards), reversed(dones)):
        ret = r + gamma * ret * (1.0 - d)
        out.append(ret)
    return torch.stack(out[::-1])


def main():
    args = parse_args()
    device = dist.setup()

    # decorrelated experience: every worker seeds its own environments
    env = make_vec_env(args.n_envs, seed=args.seed + 1000 * hvd.rank())
    torch.manual_seed(args.seed)

    model = ActorCritic(env.obs_dim, env.n_actions).to(device)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=args.lr * hvd.size(), alpha=0.99, eps=1e-5)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    dist.sync(model, optimizer)

    obs = env.reset()
    for update in range(1, args.updates + 1):
        logps, values, ents, rewards, dones = [], [], [], [], []
        for _ in range(args.rollout):
            logits, value = model(torch.as_tensor(obs, device=device))
            pd = torch.distributions.Categorical(logits=logits)
            action = pd.sample()
            obs, reward, done = env.step(action.cpu().numpy())
            logps.append(pd.log_prob(action))
            values.append(value)
            ents.append(pd.entropy())
            rewards.append(torch.as_tensor(reward, device=device))
            dones.append(torch.as_tensor(done, device=device))

        with torch.no_grad():
            _, last_value = model(torch.as_tensor(obs, device=device))
        returns = discounted(rewards, dones, last_value, args.gamma)
        adv = returns - torch.stack(values)
        policy_loss = -(torch.stack(logps) * adv.detach()).mean()
        value_loss = adv.pow(2).mean()
        loss = policy_loss + 0.5 * value_loss - args.ent_coef * torch.stack(ents).mean()

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        if update % args.log_every == 0:
            # same number of env steps on every worker, so the mean of the means is the global mean
            step_reward = dist.allreduce_mean(torch.stack(rewards).mean(), "step_reward")
            vloss = dist.allreduce_mean(value_loss, "value_loss")
            if dist.is_root():
                recent = np.mean(env.finished[-20:]) if env.finished else float("nan")
                print(f"update {update}: reward/step {step_reward:.4f} value loss {vloss:.4f} "
                      f"(rank 0 episodes {recent:.2f})")
        if update % args.save_every == 0:
            save_checkpoint(args.out, model, optimizer, update)

    save_checkpoint(args.out, model, optimizer, args.updates)


if __name__ == "__main__":
    main()
