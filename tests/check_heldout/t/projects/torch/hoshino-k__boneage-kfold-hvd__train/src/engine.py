import torch
import torch.nn.functional as F
import horovod.torch as hvd

from . import dist


def train_one_epoch(model, ema, loader, optimizer, device):
    model.train()
    running = 0.0
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        optimizer.zero_grad()
        loss = F.smooth_l1_loss(model(x), y)
        loss.backward()
        optimizer.step()
        ema.update_parameters(model)
        running += loss.item()
    return running / max(1, len(loader))


@torch.no_grad()
def validate(model, loader, device):
    model.eval()
    abs_err = torch.zeros(1)
    count = torch.zeros(1)
    for x, y in loader:
        pred = model(x.to(device)).float().cpu()
        abs_err += (pred - y).abs().sum() * 240.0
        count += y.numel()
    abs_err = hvd.allreduce(abs_err, op=hvd.Sum, name="val_abs_err")
    count = hvd.allreduce(count, op=hvd.Sum, name="val_count")
    return (abs_err / count).item()


def run_fold(fold, epochs, model, ema, optimizer, scheduler, loaders, device, on_best):
    tr, va, tr_sampler = loaders
    best = float("inf")
    try:
        for epoch in range(epochs):
            tr_sampler.set_epoch(epoch)
            loss = train_one_epoch(model, ema, tr, optimizer, device)
            scheduler.step()
            mae = validate(ema.module, va, device)
            if dist.is_main():
                print(f"fold {fold} epoch {epoch}: train {loss:.4f}  val MAE {mae:.2f} months", flush=True)
            if mae < best:
                best = mae
                on_best(fold, epoch, mae)
    finally:
        dist.cleanup()
    return best
