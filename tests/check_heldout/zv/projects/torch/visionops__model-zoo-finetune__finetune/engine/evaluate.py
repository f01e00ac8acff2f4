import torch
import horovod.torch as hvd


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    stats = torch.zeros(2)
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        with torch.autocast(device_type=device.type, enabled=device.type == "cuda"):
            logits = model(x)
        stats[0] += (logits.argmax(1) == y).sum().item()
        stats[1] += y.numel()
    stats = hvd.allreduce(stats, op=hvd.Sum, name="eval_stats")
    return (stats[0] / stats[1]).item()
