from dataclasses import dataclass, field, asdict
from typing import List


@dataclass
class RunConfig:
    csv: str = "data/higgs_small.csv"
    target: str = "target"
    cat_features: List[str] = field(default_factory=list)
    model: str = "mlp"
    d_embed: int = 8
    hidden: int = 256
    n_layers: int = 3
    lr: float = 1e-3
    batch_size: int = 512
    epochs: int = 50
    early_stop: int = 8
    out_dir: str = "out"
    seed: int = 0

    def to_dict(self):
        return asdict(self)
