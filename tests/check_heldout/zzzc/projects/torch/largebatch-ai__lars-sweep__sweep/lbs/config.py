from dataclasses import dataclass, replace


@dataclass
class TrialConfig:
    optimizer: str = "lars"
    base_lr: float = 0.1          # lr tuned at ref_batch on one GPU
    ref_batch: int = 256
    batch_size: int = 512         # per worker
    warmup_epochs: int = 5
    epochs: int = 30
    weight_decay: float = 5e-4
    out_dir: str = "sweeps"

    def with_(self, **kw):
        return replace(self, **kw)
