import horovod.torch as hvd
import torch
import torch.nn.functional as F


def make_optimizer(model, base_lr, weight_decay=0.01, fp16_allreduce=False):
    """AdamW at base_lr x workers, wrapped for Horovod; starting weights/state come from rank 0."""
    opt = torch.optim.AdamW(model.parameters(), lr=base_lr * hvd.size(), weight_decay=weight_decay)
    opt = hvd.DistributedOptimizer(
        opt, named_parameters=model.named_parameters(),
        compression=hvd.Compression.fp16 if fp16_allreduce else hvd.Compression.none)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    return opt


def train_one_epoch(model, optimizer, batch_iter, device, clip=1.0):
    model.train()
    total, n = 0.0, 0
    for q, d in batch_iter:
        q, d = q.to(device), d.to(device)
        logits = model(q, d)
        loss = F.cross_entropy(logits, torch.arange(len(q), device=device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.synchronize()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        with optimizer.skip_synchronize():
            optimizer.step()
        total += loss.item()
        n += 1
    return total / max(n, 1)
