from dataclasses import dataclass, fields


@dataclass
class Config:
    data: str = ""
    out: str = "runs/simclr"
    epochs: int = 200
    batch_size: int = 64          # per GPU
    accum: int = 2                # backward passes per optimizer step
    base_lr: float = 0.3          # for 256 images per step (linear rule)
    momentum: float = 0.9
    weight_decay: float = 1e-6
    temperature: float = 0.2
    width: int = 64
    proj_dim: int = 128
    image_size: int = 96
    workers: int = 6
    amp: bool = True
    clip: float = 5.0
    save_every: int = 10
    seed: int = 42

    @classmethod
    def from_args(cls, args):
        cfg = cls()
        for f in fields(cls):
            v = getattr(args, f.name, None)
            if v is not None:
                setattr(cfg, f.name, v)
        if getattr(args, "no_amp", False):
            cfg.amp = False
        return cfg
