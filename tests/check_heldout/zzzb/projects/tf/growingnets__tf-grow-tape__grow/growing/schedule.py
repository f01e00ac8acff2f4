from dataclasses import dataclass, field
from typing import List


@dataclass
class GrowthSchedule:
    """Stage i trains `epochs[i]` epochs at hidden widths `widths[i]`."""
    widths: List[List[int]] = field(default_factory=lambda: [[64, 64], [128, 96], [256, 128]])
    epochs: List[int] = field(default_factory=lambda: [5, 5, 10])
    lr: List[float] = field(default_factory=lambda: [1e-3, 5e-4, 2.5e-4])  # single-worker values
    noise: float = 1e-3

    def __post_init__(self):
        assert len(self.widths) == len(self.epochs) == len(self.lr)

    def stages(self):
        return list(zip(range(len(self.widths)), self.widths, self.epochs, self.lr))
