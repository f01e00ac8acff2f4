from dataclasses import dataclass, field, asdict
import json


@dataclass
class TrainConfig:
    data_dir: str = "~/data/cifar10"
    arch: str = "resnet20"
    epochs: int = 160
    batch_size: int = 128          # per worker
    base_lr: float = 0.1           # lr for one worker
    momentum: float = 0.9
    weight_decay: float = 1e-4
    warmup_epochs: int = 5
    commit_every: int = 100        # batches between state.commit()
    checkpoint_dir: str = "runs/elastic"
    seed: int = 42
    milestones: list = field(default_factory=lambda: [80, 120])

    @classmethod
    def from_json(cls, path):
        with open(path) as f:
            return cls(**json.load(f))

    def to_dict(self):
        return asdict(self)
