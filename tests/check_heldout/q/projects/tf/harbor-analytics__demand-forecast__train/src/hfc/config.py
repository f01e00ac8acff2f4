from dataclasses import dataclass


@dataclass(frozen=True)
class ExperimentConfig:
    data_path: str = "/data/harbor/container_moves.npz"
    output_dir: str = "/results/hfc"
    model: str = "tcn_small"
    lookback: int = 48
    horizon: int = 12
    batch_size: int = 256          # per worker
    base_lr: float = 1e-3          # one worker
    warmup_epochs: int = 3
    epochs: int = 40
    val_fraction: float = 0.15
    seed: int = 2024


def from_overrides(**overrides):
    known = {k: v for k, v in overrides.items() if v is not None}
    return ExperimentConfig(**known)
