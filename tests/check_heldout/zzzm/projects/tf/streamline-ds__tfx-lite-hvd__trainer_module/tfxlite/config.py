import dataclasses
from dataclasses import dataclass, field
from typing import List


@dataclass
class HParams:
    batch_size: int = 256
    epochs: int = 10
    learning_rate: float = 1e-3
    warmup_epochs: int = 2
    hidden_units: List[int] = field(default_factory=lambda: [128, 64])
    num_features: int = 16
    project: str = "tfx-lite"

    @classmethod
    def from_dict(cls, d):
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(d) - names
        if unknown:
            raise ValueError("unknown hparams: %s" % sorted(unknown))
        return cls(**d)

    def to_dict(self):
        return dataclasses.asdict(self)
