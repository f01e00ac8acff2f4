import torch
import torch.nn.functional as F
import horovod.torch as hvd


def train_epoch(model, loader, optimizer, scheduler, scaler, device, grad_accum=1):
    model.train()
    running, seen = 0.0, 0
    usable = (len(loader) // grad_accum) * grad_accum  # no half-accumulated step at epoch end
    optimizer.zero_grad()
    for i, batch in enumerate(loader):
        if i >= usable:
            break
        batch = {k: v.to(device) for k, v in batch.items()}
        with torch.autocast(device_type=device.type, enabled=scaler.is_enabled()):
            logits = model(batch["input_ids"], batch["attention_mask"])
            loss = F.cross_entropy(logits, batch["labels"]) / grad_accum
        scaler.scale(loss).backward()
        running += loss.item() * grad_accum
        seen += 1
        if (i + 1) % grad_accum == 0:
            # allreduce first, then unscale and clip the averaged gradients
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
            scheduler.step()
            optimizer.zero_grad()
    return running / max(1, seen)


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct = torch.zeros(1)
    total = torch.zeros(1)
    for batch in loader:
        batch = {k: v.to(device) for k, v in batch.items()}
        pred = model(batch["input_ids"], batch["attention_mask"]).argmax(-1)
        correct += (pred == batch["labels"]).sum().item()
        total += batch["labels"].numel()
    correct = hvd.allreduce(correct, name="dev_correct", op=hvd.Sum)
    total = hvd.allreduce(total, name="dev_total", op=hvd.Sum)
    return (correct / total).item()
