from dataclasses import asdict, dataclass, field, fields

import yaml


@dataclass
class TrainConfig:
    data_csv: str = "data/esol_clean.csv"
    smiles_col: str = "smiles"
    target_col: str = "logS"
    fp_bits: int = 2048
    fp_radius: int = 2
    hidden: list = field(default_factory=lambda: [1024, 256])
    dropout: float = 0.1
    batch_size: int = 64          # per GPU
    lr: float = 3e-4
    weight_decay: float = 1e-5
    epochs: int = 60
    val_frac: float = 0.1
    test_frac: float = 0.1
    seed: int = 0
    out_dir: str = "checkpoints/fpnet"

    def to_dict(self):
        return asdict(self)


def load_config(path=None, **overrides):
    cfg = TrainConfig()
    overrides = {k: v for k, v in overrides.items() if v is not None}
    if path:
        with open(path) as fh:
            overrides = {**(yaml.safe_load(fh) or {}), **overrides}
    names = {f.name for f in fields(TrainConfig)}
    for key, value in overrides.items():
        if key not in names:
            raise KeyError(f"unknown config key {key!r}")
        setattr(cfg, key, value)
    return cfg
