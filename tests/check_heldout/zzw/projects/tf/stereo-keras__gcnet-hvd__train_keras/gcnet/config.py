import json
from dataclasses import asdict, dataclass, field


@dataclass
class GCNetConfig:
    data_dir: str = "data/sceneflow_tfrec"
    height: int = 128
    width: int = 256
    max_disp: int = 96
    features: int = 16
    batch_size: int = 2            # per worker
    base_lr: float = 1e-3          # single-worker lr
    warmup_epochs: int = 3
    epochs: int = 30
    train_examples: int = 35454
    val_examples: int = 4370
    out_dir: str = "runs/gcnet"
    focal_baseline: list = field(default_factory=lambda: [1050.0, 0.54])  # SceneFlow fx (px), baseline (m)

    @classmethod
    def from_json(cls, path):
        cfg = cls()
        if path:
            with open(path) as f:
                for k, v in json.load(f).items():
                    setattr(cfg, k, v)
        return cfg

    def dump(self, path):
        with open(path, "w") as f:
            json.dump(asdict(self), f, indent=2)
