import copy
import json
from dataclasses import asdict, dataclass, field, fields, is_dataclass


@dataclass
class DataCfg:
    root: str = "data/cifar10_npz"
    batch_size: int = 128          # per GPU
    num_workers: int = 4


@dataclass
class ModelCfg:
    name: str = "convnet_s"
    num_classes: int = 10


@dataclass
class OptimCfg:
    name: str = "sgd"
    lr: float = 0.05               # for one GPU with data.batch_size
    momentum: float = 0.9
    weight_decay: float = 5e-4


@dataclass
class TrainCfg:
    epochs: int = 90
    accum_steps: int = 2
    amp: bool = True
    fp16_allreduce: bool = False
    grad_clip: float = 0.0
    ema_decay: float = 0.999
    ckpt_interval: int = 5
    log_interval: int = 50


@dataclass
class Config:
    seed: int = 42
    data: DataCfg = field(default_factory=DataCfg)
    model: ModelCfg = field(default_factory=ModelCfg)
    optim: OptimCfg = field(default_factory=OptimCfg)
    train: TrainCfg = field(default_factory=TrainCfg)

    def to_dict(self):
        return asdict(self)


def _cast(old, value):
    if isinstance(old, bool):
        return str(value).lower() in ("1", "true", "yes")
    return type(old)(value)


def _update(node, updates):
    for f in fields(node):
        if f.name not in updates:
            continue
        cur = getattr(node, f.name)
        if is_dataclass(cur):
            _update(cur, updates[f.name])
        else:
            setattr(node, f.name, _cast(cur, updates[f.name]))


def load_config(path=None, opts=()):
    cfg = Config()
    if path:
        with open(path) as fh:
            _update(cfg, json.load(fh))
    for opt in opts:
        key, value = opt.split("=", 1)
        node = cfg
        *parents, leaf = key.split(".")
        for p in parents:
            node = getattr(node, p)
        setattr(node, leaf, _cast(getattr(node, leaf), value))
    return copy.deepcopy(cfg)
