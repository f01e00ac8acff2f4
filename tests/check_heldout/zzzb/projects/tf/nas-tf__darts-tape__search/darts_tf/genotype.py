import numpy as np

from .ops import OP_NAMES


def genotype_from_alphas(alphas):
    a = np.asarray(alphas)
    probs = np.exp(a) / np.exp(a).sum(-1, keepdims=True)
    return [(OP_NAMES[int(i)], float(p[i])) for p, i in zip(probs, probs.argmax(-1))]
