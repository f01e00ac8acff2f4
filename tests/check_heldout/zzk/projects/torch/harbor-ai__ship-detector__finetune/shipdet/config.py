import json
from dataclasses import dataclass, field, fields
from typing import List, Optional


@dataclass
class FinetuneConfig:
    data_root: str = "data/hrsc2016"
    num_classes: int = 2  # background + ship
    arch: str = "fasterrcnn_resnet50_fpn_v2"
    pretrained: Optional[str] = "weights/fasterrcnn_resnet50_fpn_v2_coco.pth"
    freeze_backbone_layers: int = 3
    batch_size: int = 4  # images per GPU
    workers: int = 4
    epochs: int = 24
    lr: float = 0.005
    momentum: float = 0.9
    weight_decay: float = 1e-4
    warmup_iters: int = 500
    lr_steps: List[int] = field(default_factory=lambda: [16, 22])
    min_size: int = 800
    max_size: int = 1333
    output_dir: str = "work_dirs/ship_ft"
    amp: bool = False
    log_interval: int = 20


def load_config(path=None, **overrides):
    cfg = FinetuneConfig()
    if path:
        with open(path) as f:
            data = json.load(f)
        known = {f.name for f in fields(FinetuneConfig)}
        for k, v in data.items():
            if k not in known:
                raise KeyError(f"unknown config key {k!r} in {path}")
            setattr(cfg, k, v)
    for k, v in overrides.items():
        if v is not None:
            setattr(cfg, k, v)
    return cfg
