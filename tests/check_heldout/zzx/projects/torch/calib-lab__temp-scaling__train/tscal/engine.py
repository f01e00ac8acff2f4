import torch
import torch.nn.functional as F
import horovod.torch as hvd


def train_one_epoch(model, loader, optimizer, device, log_every=100):
    model.train()
    for i, (x, y) in enumerate(loader):
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        if hvd.rank() == 0 and i % log_every == 0:
            print(f"  it {i:5d}  loss {loss.item():.4f}", flush=True)


@torch.no_grad()
def gather_logits(model, loader, device):
    """Logits of this worker's shard, then gathered so every worker holds all of them."""
    model.eval()
    logits, labels = [], []
    for x, y in loader:
        logits.append(model(x.to(device)).float().cpu())
        labels.append(y)
    logits = hvd.allgather(torch.cat(logits), name="gather_logits")
    labels = hvd.allgather(torch.cat(labels), name="gather_labels")
    return logits, labels
