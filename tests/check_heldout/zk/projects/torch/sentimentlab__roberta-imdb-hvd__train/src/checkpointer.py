import os

import torch
import horovod.torch as hvd


class Checkpointer:
    def __init__(self, out_dir):
        self.out_dir = out_dir

    def save(self, epoch, model, optimizer, schedule, metric):
        if hvd.rank() != 0:
            return
        os.makedirs(self.out_dir, exist_ok=True)
        torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "schedule": schedule.state_dict(), "metric": metric},
                   os.path.join(self.out_dir, f"epoch{epoch:02d}.pt"))

    def load(self, path, model, optimizer, schedule):
        # every worker reads the same file from the shared filesystem
        state = torch.load(path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        schedule.load_state_dict(state["schedule"])
        return state["epoch"] + 1
