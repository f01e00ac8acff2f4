import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd


def mlp(i, o, h=256):
    return nn.Sequential(nn.Linear(i, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, o))


class Actor(nn.Module):
    def __init__(self, obs_dim, act_dim, act_limit):
        super().__init__()
        self.net = mlp(obs_dim, 2 * act_dim)
        self.act_limit = act_limit

    def forward(self, o, deterministic=False):
        mu, log_std = self.net(o).chunk(2, dim=-1)
        std = log_std.clamp(-20, 2).exp()
        dist = torch.distributions.Normal(mu, std)
        u = mu if deterministic else dist.rsample()
        logp = dist.log_prob(u).sum(-1) - (2 * (torch.log(torch.tensor(2.0)) - u - F.softplus(-2 * u))).sum(-1)
        return self.act_limit * torch.tanh(u), logp


class TwinQ(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.q1, self.q2 = mlp(obs_dim + act_dim, 1), mlp(obs_dim + act_dim, 1)

    def forward(self, o, a):
        x = torch.cat([o, a], dim=-1)
        return self.q1(x).squeeze(-1), self.q2(x).squeeze(-1)


class SACAgent:
    def __init__(self, obs_dim, act_dim, act_limit, lr, gamma=0.99, polyak=0.995, device="cpu"):
        self.gamma, self.polyak, self.device = gamma, polyak, device
        self.actor = Actor(obs_dim, act_dim, act_limit).to(device)
        self.critic = TwinQ(obs_dim, act_dim).to(device)
        self.critic_targ = copy.deepcopy(self.critic).requires_grad_(False)
        self.log_alpha = torch.zeros(1, requires_grad=True, device=device)
        self.target_entropy = -float(act_dim)

        self.critic_opt = hvd.DistributedOptimizer(
            torch.optim.Adam(self.critic.parameters(), lr=lr),
            named_parameters=self.critic.named_parameters(prefix="critic"))
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=lr)
        self.alpha_opt = torch.optim.Adam([self.log_alpha], lr=lr)

    def act(self, o, deterministic=False):
        with torch.no_grad():
            a, _ = self.actor(torch.as_tensor(o, device=self.device)[None], deterministic)
        return a[0].cpu().numpy()

    def update(self, o, a, r, o2, d):
        alpha = self.log_alpha.exp().detach()
        with torch.no_grad():
            a2, logp2 = self.actor(o2)
            qt = torch.min(*self.critic_targ(o2, a2))
            backup = r + self.gamma * (1 - d) * (qt - alpha * logp2)
        q1, q2 = self.critic(o, a)
        loss_q = F.mse_loss(q1, backup) + F.mse_loss(q2, backup)
        self.critic_opt.zero_grad()
        loss_q.backward()
        self.critic_opt.step()

        self.critic.requires_grad_(False)
        pi, logp = self.actor(o)
        loss_pi = (alpha * logp - torch.min(*self.critic(o, pi))).mean()
        self.actor_opt.zero_grad()
        loss_pi.backward()
        self.actor_opt.step()
        self.critic.requires_grad_(True)

        loss_alpha = -(self.log_alpha * (logp.detach() + self.target_entropy)).mean()
        self.alpha_opt.zero_grad()
        loss_alpha.backward()
        self.alpha_opt.step()

        with torch.no_grad():
            for p, pt in zip(self.critic.parameters(), self.critic_targ.parameters()):
                pt.mul_(self.polyak).add_((1 - self.polyak) * p)
        return loss_q.item(), loss_pi.item()

    def state_dict(self):
        return {"actor": self.actor.state_dict(), "critic": self.critic.state_dict(),
                "critic_targ": self.critic_targ.state_dict(), "log_alpha": self.log_alpha.detach().cpu()}
