from dataclasses import dataclass, asdict
import json


@dataclass
class TrainConfig:
    dataset: str = "fashion_mnist"
    teacher_weights: str = "weights/teacher_fmnist.weights.h5"
    batch_size: int = 256          # per replica
    base_lr: float = 2e-3
    epochs: int = 25
    temperature: float = 5.0
    alpha: float = 0.3
    ckpt_dir: str = "ckpts/student"

    @classmethod
    def from_json(cls, path):
        with open(path) as f:
            return cls(**json.load(f))

    def dump(self):
        return json.dumps(asdict(self), indent=2)
