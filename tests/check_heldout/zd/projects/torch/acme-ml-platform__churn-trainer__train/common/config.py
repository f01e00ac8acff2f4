"""Job configuration: dataclass defaults, overridable from ACME_* environment variables."""
import dataclasses
import os


@dataclasses.dataclass
class TrainConfig:
    experiment: str = "churn-default"
    data_uri: str = "/mnt/objstore/datasets/churn/v7/features.npz"
    checkpoint_uri: str = "/mnt/objstore/checkpoints/churn"
    resume_from: str = ""
    epochs: int = 20
    global_batch_size: int = 2048
    lr: float = 1e-3
    hidden: int = 128
    seed: int = 1234
    num_workers: int = 2

    @classmethod
    def from_env(cls, prefix="ACME_"):
        kwargs = {}
        for f in dataclasses.fields(cls):
            raw = os.environ.get(prefix + f.name.upper())
            if raw is not None:
                kwargs[f.name] = f.type(raw) if callable(f.type) else type(f.default)(raw)
        return cls(**kwargs)
