import logging
import os

import horovod.torch as hvd
import torch

log = logging.getLogger(__name__)


def save(path, model, optimizer, epoch):
    if hvd.rank() != 0:
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    torch.save({"model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "epoch": epoch}, tmp)
    os.replace(tmp, path)
    log.info("saved %s (epoch %d)", path, epoch)


def restore_and_sync(path, model, optimizer):
    """Rank 0 reads the checkpoint (if any); everyone gets rank 0's state."""
    start_epoch = 0
    if hvd.rank() == 0 and path and os.path.exists(path):
        state = torch.load(path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch = state["epoch"] + 1
        log.info("resuming from %s at epoch %d", path, start_epoch)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    return hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
