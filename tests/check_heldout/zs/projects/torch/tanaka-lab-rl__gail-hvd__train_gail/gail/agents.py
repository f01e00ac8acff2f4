import torch
import torch.nn as nn
import horovod.torch as hvd


def mlp(i, o, h=256, n=2):
    layers, d = [], i
    for _ in range(n):
        layers += [nn.Linear(d, h), nn.Tanh()]
        d = h
    return nn.Sequential(*layers, nn.Linear(d, o))


class Policy(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.net = mlp(obs_dim, act_dim)

    def forward(self, obs):
        return torch.tanh(self.net(obs))


class Discriminator(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.net = mlp(obs_dim + act_dim, 1, h=128)

    def forward(self, obs, act):
        return self.net(torch.cat([obs, act], -1)).squeeze(-1)


def build_optimizers(policy, disc, cfg):
    scale = hvd.size()
    pi_opt = torch.optim.Adam(policy.parameters(), lr=cfg["pi_lr"] * scale)
    d_opt = torch.optim.Adam(disc.parameters(), lr=cfg["d_lr"] * scale)
    # the discriminator sees every rank's expert/policy pairs
    d_opt = hvd.DistributedOptimizer(d_opt, named_parameters=disc.named_parameters(),
                                     op=hvd.Average)
    return pi_opt, d_opt
