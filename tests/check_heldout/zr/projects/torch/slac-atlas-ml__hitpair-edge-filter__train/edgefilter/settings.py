"""Run settings. Override any field from the command line: --set key=value."""
from dataclasses import dataclass, field, fields
from typing import List

import horovod.torch as hvd


@dataclass
class Settings:
    event_dir: str = "/global/cfs/projectdirs/atlas/trackml/edges"
    out_dir: str = "runs/edgefilter"
    n_train_events: int = 1800
    n_val_events: int = 200
    batch_size: int = 4096                 # hit pairs per rank
    lr: float = 1e-3 * hvd.size()          # linear scaling with the number of workers
    epochs: int = 20
    milestones: List[int] = field(default_factory=lambda: [10, 15])
    pos_weight: float = 3.0                # true edges are rare after the geometric cut
    threshold: float = 0.5
    resume: bool = True                    # pick up runs/.../latest.pt after a requeue

    def update(self, pairs):
        types = {f.name: f.type for f in fields(self)}
        for kv in pairs or []:
            k, v = kv.split("=", 1)
            if k not in types:
                raise KeyError(f"unknown setting {k}")
            t = types[k]
            if t == List[int]:
                v = [int(s) for s in v.split(",")]
            elif t is bool:
                v = v.lower() in ("1", "true", "yes")
            setattr(self, k, t(v) if t in (int, float, str) else v)
        return self
