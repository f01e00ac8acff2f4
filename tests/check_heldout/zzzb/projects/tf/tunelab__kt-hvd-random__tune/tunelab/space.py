import dataclasses
import random
from typing import Dict, List


@dataclasses.dataclass
class Trial:
    trial_id: int
    hp: Dict
    score: float = float("nan")
    status: str = "pending"


@dataclasses.dataclass
class SearchSpace:
    filters: List[int] = dataclasses.field(default_factory=lambda: [16, 32, 64])
    blocks: List[int] = dataclasses.field(default_factory=lambda: [1, 2, 3])
    dense: List[int] = dataclasses.field(default_factory=lambda: [64, 128])
    dropout: List[float] = dataclasses.field(default_factory=lambda: [0.0, 0.25, 0.5])
    lr: List[float] = dataclasses.field(default_factory=lambda: [1e-4, 3e-4, 1e-3])

    def sample(self, n, seed=42):
        rng = random.Random(seed)
        trials = []
        for i in range(n):
            hp = {f.name: rng.choice(getattr(self, f.name)) for f in dataclasses.fields(self)}
            trials.append(Trial(i, hp))
        return trials
