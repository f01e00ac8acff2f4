from dataclasses import dataclass, field
from typing import List


@dataclass
class VaRConfig:
    tickers: int = 20
    lookback: int = 40
    hidden: int = 48
    quantiles: List[float] = field(default_factory=lambda: [0.01, 0.05, 0.5])
    batch_size: int = 256          # per worker
    base_lr: float = 3e-4          # single-worker lr, scaled by the number of workers
    warmup_epochs: int = 2
    epochs: int = 15
    seed: int = 99
    val_start: str = "2016-01-01"
    out_dir: str = "artifacts"
