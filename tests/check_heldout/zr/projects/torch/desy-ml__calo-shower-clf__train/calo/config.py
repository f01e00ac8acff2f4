import argparse
import json
from dataclasses import dataclass, asdict, fields


@dataclass
class Config:
    data_dir: str = "/data/dust/calo/showers"
    out_dir: str = "checkpoints"
    epochs: int = 40
    batch_size: int = 128          # showers per rank
    base_lr: float = 5e-4          # tuned on one GPU with batch 128
    weight_decay: float = 0.0
    warmup_epochs: int = 2
    seed: int = 1234
    log_every: int = 50
    resume: bool = True

    @classmethod
    def from_cli(cls, argv=None):
        p = argparse.ArgumentParser()
        p.add_argument("--config", default=None, help="json file overriding the defaults")
        for f in fields(cls):
            kw = {"action": argparse.BooleanOptionalAction} if f.type is bool else {"type": f.type}
            p.add_argument("--" + f.name.replace("_", "-"), dest=f.name, default=None, **kw)
        ns = p.parse_args(argv)
        cfg = cls()
        if ns.config:
            with open(ns.config) as fh:
                for k, v in json.load(fh).items():
                    setattr(cfg, k, v)
        for f in fields(cls):
            v = getattr(ns, f.name)
            if v is not None:
                setattr(cfg, f.name, v)
        return cfg

    def dump(self):
        return json.dumps(asdict(self), indent=2)
