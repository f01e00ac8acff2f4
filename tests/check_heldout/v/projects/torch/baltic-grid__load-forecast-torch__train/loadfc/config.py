import dataclasses


@dataclasses.dataclass
class Config:
    series_dir: str = "/lake/grid/load_series"
    out_dir: str = "/lake/grid/models/tcn-torch"
    history: int = 168
    horizon: int = 24
    global_batch_size: int = 1024   # split over the workers; lr below is tuned for this global batch
    lr: float = 1e-3
    weight_decay: float = 1e-4
    epochs: int = 20
    val_fraction: float = 0.1
    seed: int = 7
    num_workers: int = 2
