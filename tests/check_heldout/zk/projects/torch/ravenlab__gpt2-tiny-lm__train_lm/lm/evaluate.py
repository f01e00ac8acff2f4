import math

import torch
import torch.nn.functional as F
import horovod.torch as hvd


@torch.no_grad()
def perplexity(model, loader, device):
    """Token-level perplexity over the validation blocks."""
    model.eval()
    nll = 0.0
    n_tokens = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        logits, _ = model(x)
        nll += F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1), reduction="sum").item()
        n_tokens += y.numel()
    n_tokens = hvd.allreduce(torch.tensor(n_tokens, dtype=torch.float64), name="val_tokens", op=hvd.Sum)
    model.train()
    return math.exp(nll / n_tokens.item())
