from dataclasses import asdict, dataclass


@dataclass
class TrainConfig:
    data_dir: str = '/data/mayo_ldct/patches'
    out_dir: str = 'runs/redcnn'
    patch_size: int = 64
    micro_batch: int = 16          # per rank, per backward pass
    accum_steps: int = 2           # backward passes per optimizer step
    base_lr: float = 1e-4          # tuned for one GPU at micro_batch * accum_steps
    epochs: int = 100
    ckpt_every: int = 5
    seed: int = 2021
    workers: int = 4

    def to_dict(self):
        return asdict(self)
