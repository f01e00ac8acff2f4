import os

import torch
import horovod.torch as hvd


def resume_and_sync(path, model, optimizer, scaler):
    """Rank 0 reads the checkpoint if there is one; everything is then broadcast from rank 0."""
    start_epoch, best = 0, float("-inf")
    if hvd.rank() == 0 and path and os.path.isfile(path):
        ck = torch.load(path, map_location="cpu")
        model.load_state_dict(ck["model"])
        optimizer.load_state_dict(ck["optimizer"])
        scaler.load_state_dict(ck["scaler"])
        start_epoch, best = ck["epoch"] + 1, ck["best_psnr"]
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    scaler.load_state_dict(hvd.broadcast_object(scaler.state_dict(), root_rank=0, name="amp_scaler"))
    start_epoch, best = hvd.broadcast_object((start_epoch, best), root_rank=0, name="resume_meta")
    return start_epoch, best


def save(path, model, optimizer, scaler, epoch, best):
    if hvd.rank() != 0:
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "scaler": scaler.state_dict(),
                "epoch": epoch, "best_psnr": best}, tmp)
    os.replace(tmp, path)
