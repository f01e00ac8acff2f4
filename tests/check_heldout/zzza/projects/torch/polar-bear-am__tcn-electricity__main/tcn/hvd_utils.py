import torch
import horovod.torch as hvd


def init_horovod():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        torch.backends.cudnn.benchmark = True
        return torch.device("cuda", hvd.local_rank())
    torch.set_num_threads(max(1, torch.get_num_threads() // hvd.local_size()))
    return torch.device("cpu")


def restore_and_sync(model, optimizer, path):
    """Rank 0 reads the checkpoint (if any); everybody receives rank 0's state."""
    payload = None
    if hvd.rank() == 0:
        payload = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": 0}
        if path:
            ckpt = torch.load(path, map_location="cpu")
            payload = {"model": ckpt["model"], "optimizer": ckpt["optimizer"], "epoch": ckpt["epoch"] + 1}
    payload = hvd.broadcast_object(payload, root_rank=0, name="restore")
    model.load_state_dict(payload["model"])
    optimizer.load_state_dict(payload["optimizer"])
    return payload["epoch"]
