from dataclasses import dataclass, field, asdict


@dataclass
class TrainConfig:
    data: str = "data/7scenes_chess.npz"
    out_dir: str = "results/posenet"
    global_batch: int = 64          # images per step summed over all workers (kept fixed when scaling out)
    lr: float = 1e-4                # tuned for global_batch=64; independent of the number of workers
    weight_decay: float = 5e-4
    epochs: int = 300
    warmup_epochs: int = 3
    beta: float = 500.0             # rotation vs translation weight (PoseNet)
    img_size: int = 128
    eval_every: int = 10
    seed: int = 7
    channels: list = field(default_factory=lambda: [32, 64, 128, 256])

    def update(self, **kw):
        for k, v in kw.items():
            if v is not None:
                if not hasattr(self, k):
                    raise KeyError(k)
                setattr(self, k, v)
        return self

    def dict(self):
        return asdict(self)
