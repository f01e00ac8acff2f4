import torch
import horovod.torch as hvd


@torch.no_grad()
def in_batch_recall(model, users, items, k, batch_size):
    hits, total = 0.0, 0.0
    for i in range(0, len(users) - batch_size + 1, batch_size):
        scores = model(users[i:i + batch_size], items[i:i + batch_size])
        topk = scores.topk(min(k, scores.shape[1]), dim=1).indices
        target = torch.arange(scores.shape[0]).unsqueeze(1)
        hits += (topk == target).any(dim=1).float().sum().item()
        total += scores.shape[0]
    sums = hvd.allreduce(torch.tensor([hits, total]), op=hvd.Sum, name="recall_sums")
    return (sums[0] / sums[1].clamp(min=1)).item()
