from dataclasses import dataclass, field, asdict
import json
import os


@dataclass
class TrainConfig:
    data_dir: str = "data/plankton_npz"
    out_dir: str = "runs/plankton"
    image_size: int = 64
    num_classes: int = 12
    batch_size: int = 32          # per worker
    base_lr: float = 1e-3         # single-worker lr, scaled by the number of workers
    warmup_epochs: int = 3
    epochs: int = 40
    label_smoothing: float = 0.05
    dropout: float = 0.3
    widths: list = field(default_factory=lambda: [32, 64, 128])
    seed: int = 1234

    @classmethod
    def from_json(cls, path):
        cfg = cls()
        if path and os.path.exists(path):
            with open(path) as fh:
                for key, value in json.load(fh).items():
                    if hasattr(cfg, key):
                        setattr(cfg, key, value)
        return cfg

    def dump(self, path):
        with open(path, "w") as fh:
            json.dump(asdict(self), fh, indent=2)
