import dataclasses
import os


@dataclasses.dataclass
class KerasJobConfig:
    experiment: str = "churn-keras"
    data_uri: str = "/mnt/objstore/datasets/churn/v7/features.npz"
    model_dir: str = "/mnt/objstore/models/churn-keras"
    epochs: int = 30
    batch_size: int = 256          # per worker
    base_lr: float = 5e-4          # tuned for one worker
    warmup_epochs: int = 3
    patience: int = 4

    @classmethod
    def from_env(cls, prefix="ACME_"):
        values = {}
        for f in dataclasses.fields(cls):
            key = prefix + f.name.upper()
            if key in os.environ:
                values[f.name] = type(f.default)(os.environ[key])
        return cls(**values)
