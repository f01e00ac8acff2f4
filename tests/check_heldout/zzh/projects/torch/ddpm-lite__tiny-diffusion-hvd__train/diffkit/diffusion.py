import torch
import torch.nn.functional as F


class GaussianDiffusion:
    def __init__(self, timesteps=1000, device="cpu"):
        self.T = timesteps
        betas = torch.linspace(1e-4, 0.02, timesteps, device=device)
        self.alphas_bar = torch.cumprod(1.0 - betas, dim=0)

    def loss(self, model, x0, generator=None):
        t = torch.randint(0, self.T, (x0.size(0),), device=x0.device, generator=generator)
        noise = torch.randn(x0.shape, device=x0.device, generator=generator)
        ab = self.alphas_bar[t][:, None, None, None]
        xt = ab.sqrt() * x0 + (1 - ab).sqrt() * noise
        return F.mse_loss(model(xt, t), noise)
