import os
import torch
import horovod.torch as hvd


def average(value, name):
    t = torch.tensor(float(value))
    return hvd.allreduce(t, op=hvd.Average, name=name).item()


def restore(model, optimizer, path):
    """Worker 0 reads the checkpoint; the others receive weights, optimizer and counters."""
    meta = {"task": 0, "step": 0}
    if hvd.rank() == 0 and path and os.path.exists(path):
        ckpt = torch.load(path, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        meta = ckpt["meta"]
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    return hvd.broadcast_object(meta, root_rank=0, name="resume_meta")


def save(model, optimizer, meta, path):
    if hvd.rank() == 0:
        tmp = path + ".tmp"
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "meta": meta}, tmp)
        os.replace(tmp, path)
