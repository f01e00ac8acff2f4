import torch
import torch.nn.functional as F


def energy(logits, T=1.0):
    return -T * torch.logsumexp(logits / T, dim=-1)


def energy_margin_loss(logits_in, logits_out, m_in=-25.0, m_out=-7.0):
    """Squared hinge on the free energy of in-distribution vs. outlier samples (Liu et al. 2020)."""
    e_in, e_out = energy(logits_in), energy(logits_out)
    return (F.relu(e_in - m_in) ** 2).mean() + (F.relu(m_out - e_out) ** 2).mean()
