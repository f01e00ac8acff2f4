from dataclasses import dataclass, field

import horovod.tensorflow.keras as hvd

GLOBAL_BATCH_SIZE = 64


@dataclass
class TrainConfig:
    data: str = "data/flowers64.npz"
    out_dir: str = "runs/ddim"
    image_size: int = 64
    epochs: int = 80
    # per-worker batch: the global batch is split across the Horovod workers
    batch_size: int = GLOBAL_BATCH_SIZE // hvd.size()
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    ema: float = 0.999
    min_signal_rate: float = 0.02
    max_signal_rate: float = 0.95
    widths: list = field(default_factory=lambda: [32, 64, 96, 128])
    block_depth: int = 2
    sample_every: int = 5
