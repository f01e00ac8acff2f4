from dataclasses import asdict, dataclass, fields

import yaml


@dataclass
class TrainConfig:
    data_dir: str = "/data/psi/cells_npz"
    arch: str = "resunet"
    in_ch: int = 2                     # cytoplasm + nucleus channel
    out_ch: int = 3                    # background / cell / boundary
    pretrained: str = "pretrained/cyto_generic.pth"  # generic weights, head is re-created for out_ch
    batch_size: int = 8                # per worker
    lr: float = 2e-4                   # single-GPU lr, scaled by the number of workers
    weight_decay: float = 1e-5
    epochs: int = 200
    amp: bool = True
    clip_grad: float = 1.0
    seed: int = 0
    workers: int = 4
    out_dir: str = "runs/cellseg"
    log_every: int = 25

    @classmethod
    def from_yaml(cls, path, **overrides):
        data = {}
        if path:
            with open(path) as f:
                data = yaml.safe_load(f) or {}
        data.update({k: v for k, v in overrides.items() if v is not None})
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown config keys: {sorted(unknown)}")
        return cls(**data)

    def to_dict(self):
        return asdict(self)
