import dataclasses
import json


@dataclasses.dataclass
class ExperimentConfig:
    model_dir: str = "/tmp/cifar_orbit"
    global_batch_size: int = 256
    learning_rate: float = 0.1
    momentum: float = 0.9
    train_steps: int = 5000
    steps_per_loop: int = 500
    num_classes: int = 10

    @classmethod
    def from_json(cls, path):
        with open(path) as f:
            return cls(**json.load(f))
