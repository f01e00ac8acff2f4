"""Trial settings: conf/worker.yaml merged over these defaults, then NIMBUS_TRIAL_* env overrides."""
import os
from dataclasses import dataclass, field

import yaml


@dataclass
class ModelSettings:
    width: int = 128
    depth: int = 2
    dropout: float = 0.0


@dataclass
class TrainSettings:
    batch_size: int = 64
    lr: float = 0.05
    epochs: int = 20
    early_stop_patience: int = 3


@dataclass
class TrialSettings:
    name: str = "trial"
    dataset: str = ""
    artifact_dir: str = "/tmp/nimbus-trials"
    model: ModelSettings = field(default_factory=ModelSettings)
    train: TrainSettings = field(default_factory=TrainSettings)


def load_settings(path="conf/worker.yaml"):
    raw = {}
    if os.path.exists(path):
        with open(path) as f:
            raw = yaml.safe_load(f) or {}
    s = TrialSettings(**raw.get("trial", {}), model=ModelSettings(**raw.get("model", {})),
                      train=TrainSettings(**raw.get("train", {})))
    if "NIMBUS_TRIAL_EPOCHS" in os.environ:
        s.train.epochs = int(os.environ["NIMBUS_TRIAL_EPOCHS"])
    if "NIMBUS_TRIAL_DATASET" in os.environ:
        s.dataset = os.environ["NIMBUS_TRIAL_DATASET"]
    return s
