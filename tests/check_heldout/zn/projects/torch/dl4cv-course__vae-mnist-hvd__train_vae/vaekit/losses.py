import torch
import torch.nn.functional as F


def elbo_terms(logits, x, mu, logvar):
    """Per-sample reconstruction (Bernoulli NLL) and KL terms, summed over pixels / latents."""
    recon = F.binary_cross_entropy_with_logits(logits, x, reduction="none").flatten(1).sum(1)
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1)
    return recon, kl
