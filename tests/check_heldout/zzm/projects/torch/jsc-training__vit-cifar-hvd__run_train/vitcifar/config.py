from dataclasses import dataclass, field


@dataclass
class RunConfig:
    data_dir: str = "./data"
    out_dir: str = "./runs/vit"
    epochs: int = 100
    batch_size: int = 128            # per process
    lr: float = 5e-4
    weight_decay: float = 0.05
    warmup_epochs: int = 5
    label_smoothing: float = 0.1
    grad_clip: float = 1.0
    amp: bool = False
    # set to True when launched with horovodrun / srun on several GPUs
    distributed: bool = False
    patch: int = 4
    dim: int = 192
    depth: int = 6
    heads: int = 3
    num_workers: int = 4
    extra: dict = field(default_factory=dict)
