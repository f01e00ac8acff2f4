import torch

from .data import pad


@torch.no_grad()
def mrr_at_k(model, dev_pairs, device, k=10, chunk=256):
    """MRR@k of each query against all dev passages (the full dev set, one process)."""
    model.eval()
    docs = []
    for i in range(0, len(dev_pairs), chunk):
        docs.append(model.d_enc(pad([d for _, d in dev_pairs[i:i + chunk]]).to(device)))
    docs = torch.cat(docs)
    rr = 0.0
    for i in range(0, len(dev_pairs), chunk):
        q = model.q_enc(pad([q for q, _ in dev_pairs[i:i + chunk]]).to(device))
        topk = (q @ docs.t()).topk(k, dim=1).indices.cpu()
        for row, gold in zip(topk.tolist(), range(i, i + len(topk))):
            if gold in row:
                rr += 1.0 / (row.index(gold) + 1)
    return rr / len(dev_pairs)
