import dataclasses
import json


@dataclasses.dataclass(frozen=True)
class ForecastConfig:
    data_root: str = "/lake/grid/load_windows"
    out_dir: str = "/lake/grid/models/tcn"
    history: int = 168
    horizon: int = 24
    global_batch_size: int = 2048   # kept constant across cluster sizes so runs are comparable
    base_lr: float = 3e-4
    weight_decay: float = 1e-4
    pretrain_steps: int = 500
    pretrain_lr: float = 1e-3
    epochs: int = 20
    steps_per_epoch: int = 400
    val_steps: int = 40


def load_config(path=None):
    if path is None:
        return ForecastConfig()
    with open(path) as f:
        return ForecastConfig(**json.load(f))
