import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class BayesLinear(nn.Module):
    """Mean-field Gaussian linear layer (Blundell et al., 2015), local reparameterisation."""

    def __init__(self, d_in, d_out, prior_sigma=1.0, rho_init=-5.0):
        super().__init__()
        self.w_mu = nn.Parameter(torch.empty(d_out, d_in).uniform_(-0.1, 0.1))
        self.w_rho = nn.Parameter(torch.full((d_out, d_in), rho_init))
        self.b_mu = nn.Parameter(torch.zeros(d_out))
        self.b_rho = nn.Parameter(torch.full((d_out,), rho_init))
        self.prior_sigma = prior_sigma

    def forward(self, x):
        w_sigma, b_sigma = F.softplus(self.w_rho), F.softplus(self.b_rho)
        mean = F.linear(x, self.w_mu, self.b_mu)
        var = F.linear(x ** 2, w_sigma ** 2, b_sigma ** 2)
        return mean + var.clamp_min(1e-16).sqrt() * torch.randn_like(mean)

    def kl(self):
        total = 0.0
        for mu, rho in ((self.w_mu, self.w_rho), (self.b_mu, self.b_rho)):
            sigma = F.softplus(rho)
            total = total + (math.log(self.prior_sigma) - torch.log(sigma)
                             + (sigma ** 2 + mu ** 2) / (2 * self.prior_sigma ** 2) - 0.5).sum()
        return total


class BayesMLP(nn.Module):
    def __init__(self, d_in=784, hidden=400, n_out=10):
        super().__init__()
        self.l1, self.l2, self.l3 = BayesLinear(d_in, hidden), BayesLinear(hidden, hidden), BayesLinear(hidden, n_out)

    def forward(self, x):
        x = x.flatten(1)
        return self.l3(F.relu(self.l2(F.relu(self.l1(x)))))

    def kl(self):
        return sum(m.kl() for m in self.modules() if isinstance(m, BayesLinear))
