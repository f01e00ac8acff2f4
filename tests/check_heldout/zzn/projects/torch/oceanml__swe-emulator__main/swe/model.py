import torch
import torch.nn as nn


class ResBlock(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(ch, ch, 3, padding=1, padding_mode="circular"), nn.GroupNorm(8, ch), nn.GELU(),
            nn.Conv2d(ch, ch, 3, padding=1, padding_mode="circular"), nn.GroupNorm(8, ch))

    def forward(self, x):
        return torch.nn.functional.gelu(x + self.body(x))


class SWENet(nn.Module):
    """Predicts the increment of (h, u, v) over one time step."""

    def __init__(self, history, hidden=64, blocks=6, n_vars=3):
        super().__init__()
        self.n_vars = n_vars
        self.inp = nn.Conv2d(history * n_vars, hidden, 3, padding=1, padding_mode="circular")
        self.blocks = nn.Sequential(*[ResBlock(hidden) for _ in range(blocks)])
        self.out = nn.Conv2d(hidden, n_vars, 1)

    def forward(self, x):
        last = x[:, -self.n_vars:]
        return last + self.out(self.blocks(self.inp(x)))




@torch.no_grad()
def rollout_rmse(model, traj, history, steps, mean, std, device):
    """Autoregressive rollout from the first `history` frames; RMSE per lead time (physical units)."""
    model.eval()
    traj = traj.to(device)
    m, s = mean.view(1, -1, 1, 1).to(device), std.view(1, -1, 1, 1).to(device)
    frames = [(traj[:, t] - m) / s for t in range(history)]
    errs = []
    for k in range(steps):
        x = torch.cat(frames[-history:], dim=1)
        nxt = model(x)
        frames.append(nxt)
        truth = traj[:, history + k]
        errs.append(((nxt * s + m - truth) ** 2).mean(dim=(0, 2, 3)).sqrt())
    return torch.stack(errs)  # (steps, n_vars)
