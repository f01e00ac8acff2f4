import torch

from .sim import ReachStub


@torch.no_grad()
def rollout_success(policy, episode_ids, obs_dim, act_dim, device="cpu"):
    policy.eval()
    wins = 0
    for ep in episode_ids:
        env = ReachStub(obs_dim, act_dim, seed=1000 + ep)
        obs, done, info = env.reset(), False, {}
        while not done:
            a = policy(torch.as_tensor(obs, device=device)[None])[0].cpu().numpy()
            obs, _, done, info = env.step(a)
        wins += int(info.get("success", False))
    policy.train()
    return wins / max(1, len(episode_ids))
