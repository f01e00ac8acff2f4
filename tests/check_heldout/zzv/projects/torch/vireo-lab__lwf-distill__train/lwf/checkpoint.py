import os
import torch
import horovod.torch as hvd


def save(model, optimizer, task, out_dir):
    if hvd.rank() != 0:
        return
    os.makedirs(out_dir, exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "task": task},
               os.path.join(out_dir, f"lwf_t{task}.pth"))


def latest(out_dir):
    if not os.path.isdir(out_dir):
        return None
    files = sorted(f for f in os.listdir(out_dir) if f.startswith("lwf_t"))
    return os.path.join(out_dir, files[-1]) if files else None
