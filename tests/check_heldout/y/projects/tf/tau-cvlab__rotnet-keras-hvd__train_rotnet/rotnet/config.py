"""Run configuration; command-line flags override the defaults (None = keep default)."""

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class RotNetConfig:
    data: str = ""
    out: str = "runs/rotnet"
    epochs: int = 60
    batch_size: int = 128        # per worker
    base_lr: float = 0.05        # single-worker lr; multiplied by hvd.size() in run()
    warmup_epochs: int = 3
    width: int = 64
    seed: int = 2018

    @classmethod
    def from_namespace(cls, ns):
        given = {k: v for k, v in vars(ns).items() if v is not None and k in cls.__dataclass_fields__}
        return replace(cls(), **given)
