from dataclasses import dataclass, field, asdict
import json


@dataclass
class TrainConfig:
    tfrecord_dir: str = "/data/ct/tfrecords"
    out_dir: str = "outputs/ct_effnet"
    image_size: int = 224
    per_replica_batch: int = 32
    base_lr: float = 3e-4
    warmup_epochs: int = 2
    epochs: int = 30
    train_examples: int = 48_000
    class_names: list = field(default_factory=lambda: ["normal", "nodule", "mass"])

    def dump(self, path):
        with open(path, "w") as f:
            json.dump(asdict(self), f, indent=2)
