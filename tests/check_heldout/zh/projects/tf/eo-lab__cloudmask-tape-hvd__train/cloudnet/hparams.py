import dataclasses
import json


@dataclasses.dataclass
class HParams:
    train_glob: str = '/data/s2_cloud/train/*.tfrecord'
    val_glob: str = '/data/s2_cloud/val/*.tfrecord'
    bands: int = 13
    tile: int = 256
    batch_size: int = 16
    epochs: int = 25
    steps_per_epoch: int = 1000
    val_steps: int = 100
    lr: float = 2e-4
    ema_decay: float = 0.999
    mixed_precision: bool = True
    model_dir: str = 'models/cloudnet'

    @classmethod
    def from_json(cls, path, **overrides):
        values = {}
        if path:
            with open(path) as f:
                values = json.load(f)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)
