import math
import torch


def iwae_bound(log_w):
    k = log_w.size(0)
    return torch.logsumexp(log_w, 0) - math.log(k)


def elbo(log_w):
    return log_w.mean(0)


def loss_fn(model, x, kind, k):
    lw = model.log_weights(x, k)
    b = iwae_bound(lw) if kind == "iwae" else elbo(lw)
    return -b.mean()


@torch.no_grad()
def test_ll(model, x, k_eval, chunk=500):
    lws = torch.cat([model.log_weights(x, chunk) for _ in range(max(1, k_eval // chunk))], 0)
    return iwae_bound(lws)
