import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class TransformerPolicy(nn.Module):
    def __init__(self, obs_dim, act_dim, d_model=128, n_layers=4, n_heads=4, horizon=16, grad_ckpt=False):
        super().__init__()
        self.embed = nn.Linear(obs_dim, d_model)
        self.pos = nn.Parameter(torch.zeros(1, horizon, d_model))
        self.blocks = nn.ModuleList([
            nn.TransformerEncoderLayer(d_model, n_heads, 4 * d_model, dropout=0.1, batch_first=True)
            for _ in range(n_layers)])
        self.head = nn.Linear(d_model, act_dim)
        self.grad_ckpt = grad_ckpt
        mask = torch.triu(torch.full((horizon, horizon), float("-inf")), diagonal=1)
        self.register_buffer("mask", mask, persistent=False)

    def forward(self, obs):
        x = self.embed(obs) + self.pos[:, :obs.shape[1]]
        mask = self.mask[:obs.shape[1], :obs.shape[1]]
        for blk in self.blocks:
            if self.grad_ckpt and self.training:
                x = checkpoint(blk, x, mask, use_reentrant=False)
            else:
                x = blk(x, src_mask=mask)
        return self.head(x)
