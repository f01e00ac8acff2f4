from dataclasses import dataclass, field, asdict
import json


@dataclass
class Config:
    data_path: str = "data/dyn_mnist.npz"
    out_dir: str = "results/vamp"
    num_proc: int = 4
    hosts: str = ""
    epochs: int = 200
    batch_size: int = 100
    lr: float = 5e-4
    prior_lr: float = 1e-3
    n_pseudo: int = 500
    z_dim: int = 40
    hidden: int = 300
    warmup_epochs: int = 100  # KL annealing (Bowman et al.)
    iw_samples: int = 500  # importance samples for test LL
    eval_every: int = 10
    seed: int = 14
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_json(cls, path):
        with open(path) as f:
            return cls(**json.load(f))

    def to_json(self, path):
        with open(path, "w") as f:
            json.dump(asdict(self), f, indent=2)
