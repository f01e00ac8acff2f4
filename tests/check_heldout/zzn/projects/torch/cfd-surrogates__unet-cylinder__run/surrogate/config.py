from dataclasses import dataclass, field, fields
import argparse


@dataclass
class TrainConfig:
    data_dir: str = "data/cylinder_re100"     # train.npz / val.npz: fields (N, C, H, W), params (N, P)
    out_dir: str = "runs/unet_cylinder"
    batch_size: int = 16                      # per process
    epochs: int = 300
    lr: float = 5e-4
    weight_decay: float = 0.0
    t0: int = 50                              # CosineAnnealingWarmRestarts period (epochs)
    t_mult: int = 2
    amp: bool = True
    clip_grad: float = 1.0
    base_channels: int = 32
    div_weight: float = 0.1                   # weight of the divergence-free penalty
    workers: int = 2
    seed: int = 7
    tags: list = field(default_factory=list)

    @classmethod
    def from_cli(cls):
        p = argparse.ArgumentParser()
        for f in fields(cls):
            if f.type is bool:
                p.add_argument(f"--{f.name.replace('_', '-')}", type=lambda s: s.lower() in ("1", "true", "yes"),
                               default=f.default)
            elif f.type is list:
                p.add_argument(f"--{f.name}", nargs="*", default=[])
            else:
                p.add_argument(f"--{f.name.replace('_', '-')}", type=f.type, default=f.default)
        return cls(**vars(p.parse_args()))
