import os

import torch
import horovod.torch as hvd


@torch.no_grad()
def ema_update(ema, model, decay):
    for pe, pm in zip(ema.parameters(), model.parameters()):
        pe.mul_(decay).add_(pm.detach(), alpha=1.0 - decay)
    for be, bm in zip(ema.buffers(), model.buffers()):
        be.copy_(bm)


@torch.no_grad()
def _synced_ema_state(ema):
    """EMA weights averaged over workers, so the saved EMA does not depend on who writes it."""
    state = {}
    for k, v in ema.state_dict().items():
        state[k] = hvd.allreduce(v, name=f"ema.{k}") if v.is_floating_point() else v
    return state


def save_checkpoint(path, model, ema, optimizer, scaler, step):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({"model": model.state_dict(), "ema": _synced_ema_state(ema),
                "optimizer": optimizer.state_dict(), "scaler": scaler.state_dict(),
                "step": step}, path + ".tmp")
    os.replace(path + ".tmp", path)


def load_checkpoint(path, model, ema, optimizer, scaler):
    ckpt = torch.load(path, map_location="cpu")
    model.load_state_dict(ckpt["model"])
    ema.load_state_dict(ckpt["ema"])
    optimizer.load_state_dict(ckpt["optimizer"])
    scaler.load_state_dict(ckpt["scaler"])
    return ckpt["step"]
