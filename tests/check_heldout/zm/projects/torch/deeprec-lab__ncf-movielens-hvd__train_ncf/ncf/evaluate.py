import math

import torch
import horovod.torch as hvd


@torch.no_grad()
def hit_ndcg(model, data, users, device, k=10):
    """HR@k / NDCG@k over this worker's users, summed over all workers."""
    model.eval()
    hits, ndcg = 0.0, 0.0
    for u in users:
        cand = torch.tensor([data.test_item[u], *data.eval_negs[u]], device=device)
        scores = model(torch.full_like(cand, int(u)), cand)
        rank = int((scores > scores[0]).sum())
        if rank < k:
            hits += 1
            ndcg += 1.0 / math.log2(rank + 2)
    totals = hvd.allreduce(torch.tensor([hits, ndcg, float(len(users))], dtype=torch.float64),
                           op=hvd.Sum, name="hr_ndcg")
    return (totals[0] / totals[2]).item(), (totals[1] / totals[2]).item()
