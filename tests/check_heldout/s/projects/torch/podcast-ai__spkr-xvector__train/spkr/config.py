from dataclasses import dataclass, field

import yaml


@dataclass
class DataCfg:
    train_list: str = "lists/train_utts.txt"
    trial_list: str = "lists/dev_trials.txt"
    crop_frames: int = 200
    batch_size: int = 64


@dataclass
class DeviceCfg:
    gpu: int = 0


@dataclass
class OptimCfg:
    lr: float = 0.2
    momentum: float = 0.9
    weight_decay: float = 2e-5
    epochs: int = 40


@dataclass
class ModelCfg:
    feat_dim: int = 30
    embed_dim: int = 192
    num_speakers: int = 1211


@dataclass
class Config:
    data: DataCfg = field(default_factory=DataCfg)
    device: DeviceCfg = field(default_factory=DeviceCfg)
    optim: OptimCfg = field(default_factory=OptimCfg)
    model: ModelCfg = field(default_factory=ModelCfg)
    out_dir: str = "exp/xvector"
    seed: int = 3

    @classmethod
    def from_yaml(cls, path):
        with open(path) as f:
            raw = yaml.safe_load(f)
        return cls(data=DataCfg(**raw.get("data", {})), device=DeviceCfg(**raw.get("device", {})),
                   optim=OptimCfg(**raw.get("optim", {})), model=ModelCfg(**raw.get("model", {})),
                   out_dir=raw.get("out_dir", "exp/xvector"), seed=raw.get("seed", 3))
