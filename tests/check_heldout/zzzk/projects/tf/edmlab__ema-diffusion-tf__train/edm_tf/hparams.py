import dataclasses
import json


@dataclasses.dataclass
class HParams:
    data: str = "data/cifar10_train.npy"
    workdir: str = "runs/edm_tf"
    resolution: int = 32
    channels: int = 64
    micro_batch: int = 16
    grad_accum: int = 4
    lr: float = 1e-4
    ema_halflife: float = 5e5
    total_steps: int = 400000
    log_every: int = 100
    save_every: int = 5000
    sigma_data: float = 0.5
    p_mean: float = -1.2
    p_std: float = 1.2

    @classmethod
    def from_json(cls, s):
        return cls(**json.loads(s))
