from dataclasses import dataclass, field, asdict
from typing import Optional


@dataclass
class TrainConfig:
    backend: str = "horovod"          # horovod | ddp | none
    data_dir: Optional[str] = None    # None -> synthetic corpus (for smoke tests)
    vocab_size: int = 5000
    seq_len: int = 64
    num_classes: int = 4
    batch_size: int = 32              # per process
    base_lr: float = 1e-3             # single-process lr, scaled by the world size
    epochs: int = 3
    weight_decay: float = 0.01
    seed: int = 1234
    out_dir: str = "runs/textcls"
    log_every: int = 50
    extra: dict = field(default_factory=dict)

    def to_dict(self):
        return asdict(self)
