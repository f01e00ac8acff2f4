from dataclasses import dataclass, field, fields
from typing import List


@dataclass
class TrainConfig:
    data_root: str = 'datasets/deep_pcb_crops'
    output_dir: str = 'outputs/pcb_r18'
    arch: str = 'resnet18'
    num_classes: int = 6
    pretrained: bool = True
    image_size: int = 224
    batch_size: int = 64          # per worker
    workers: int = 6
    epochs: int = 40
    base_lr: float = 0.01         # single-worker lr, scaled by hvd.size() in the trainer
    momentum: float = 0.9
    weight_decay: float = 1e-4
    milestones: List[int] = field(default_factory=lambda: [25, 35])
    fp16_allreduce: bool = False
    device: str = 'cuda'
    distributed: bool = False
    log_every: int = 20
    resume: str = ''

    def update(self, overrides):
        types = {f.name: f.type for f in fields(self)}
        for item in overrides:
            key, value = item.split('=', 1)
            if key not in types:
                raise KeyError('unknown config key: ' + key)
            cur = getattr(self, key)
            if isinstance(cur, bool):
                value = value.lower() in ('1', 'true', 'yes')
            elif isinstance(cur, list):
                value = [int(v) for v in value.split(',')]
            else:
                value = type(cur)(value)
            setattr(self, key, value)
        return self
