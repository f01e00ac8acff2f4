import os
import torch
import horovod.torch as hvd


def find_resume_epoch(fmt, epochs):
    # every rank looks for the newest file; rank 0's answer is used
    start = 0
    if hvd.rank() == 0:
        for e in range(epochs, 0, -1):
            if os.path.exists(fmt.format(epoch=e)):
                start = e
                break
    return hvd.broadcast_object(start, root_rank=0, name="resume_from_epoch")


def load(fmt, epoch, model, optimizer, scaler):
    if hvd.rank() == 0 and epoch > 0:
        ckpt = torch.load(fmt.format(epoch=epoch), map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scaler.load_state_dict(ckpt["scaler"])


def save(fmt, epoch, model, optimizer, scaler):
    if hvd.rank() != 0:
        return
    path = fmt.format(epoch=epoch + 1)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scaler": scaler.state_dict(), "epoch": epoch + 1}, path)
