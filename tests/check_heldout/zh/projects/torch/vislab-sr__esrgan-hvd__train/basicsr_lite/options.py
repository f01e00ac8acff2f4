import argparse
from dataclasses import dataclass, field, fields


@dataclass
class TrainOptions:
    name: str = 'esrgan_x4_lite'
    hr_dir: str = 'datasets/DF2K/HR_sub'
    scale: int = 4
    patch_size: int = 128
    batch_size: int = 16
    num_workers: int = 6
    total_iters: int = 400000
    lr_g: float = 1e-4
    lr_d: float = 1e-4
    milestones: list = field(default_factory=lambda: [50000, 100000, 200000, 300000])
    pixel_weight: float = 1e-2
    gan_weight: float = 5e-3
    fp16: bool = True
    pretrain_g: str = ''
    save_every: int = 5000
    log_every: int = 100
    out_dir: str = 'experiments'


def parse_options():
    parser = argparse.ArgumentParser(description='ESRGAN-lite with horovod')
    for f in fields(TrainOptions):
        if f.type is bool:
            parser.add_argument(f'--{f.name}', type=lambda s: s.lower() in ('1', 'true', 'yes'),
                                default=f.default)
        elif f.type in (int, float, str):
            parser.add_argument(f'--{f.name}', type=f.type, default=f.default)
    ns = parser.parse_args()
    return TrainOptions(**vars(ns))
