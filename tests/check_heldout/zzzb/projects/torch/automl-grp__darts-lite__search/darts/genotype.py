import torch.nn.functional as F

PRIMITIVES = ["none", "skip_connect", "avg_pool_3x3", "conv_3x3", "dil_conv_3x3"]


def derive_genotype(alphas):
    """Strongest non-zero op per edge."""
    probs = F.softmax(alphas.detach(), dim=-1).cpu()
    geno = []
    for edge in probs:
        best = max(range(1, len(PRIMITIVES)), key=lambda k: edge[k].item())
        geno.append((PRIMITIVES[best], round(edge[best].item(), 3)))
    return geno
