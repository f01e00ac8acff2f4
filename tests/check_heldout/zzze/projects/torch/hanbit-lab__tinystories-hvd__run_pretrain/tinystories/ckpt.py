import glob
import os

import horovod.torch as hvd
import torch


class CheckpointManager:
    def __init__(self, directory, keep_last=3):
        self.dir, self.keep = directory, keep_last

    def latest(self):
        found = sorted(glob.glob(os.path.join(self.dir, "step_*.pt")))
        return found[-1] if found else None

    def save(self, step, **objs):
        if hvd.rank() != 0:
            return
        os.makedirs(self.dir, exist_ok=True)
        torch.save({"step": step, **{k: v.state_dict() for k, v in objs.items()}},
                   os.path.join(self.dir, f"step_{step:07d}.pt"))
        for old in sorted(glob.glob(os.path.join(self.dir, "step_*.pt")))[:-self.keep]:
            os.remove(old)

    def restore(self, **objs):
        path = self.latest()
        if path is None:
            return 0
        state = torch.load(path, map_location="cpu")
        for k, v in objs.items():
            v.load_state_dict(state[k])
        return state["step"]
