from dataclasses import dataclass


@dataclass
class TrainConfig:
    n_sensors: int = 64
    history: int = 12          # 12 x 5 min
    horizon: int = 3
    batch_size: int = 64       # per worker
    base_lr: float = 1e-3      # single-worker value, scaled by the number of workers
    warmup_epochs: int = 2
    epochs: int = 30
    hidden: int = 32
    ckpt_dir: str = "checkpoints/stgnn"
    seed: int = 17

    def scaled_lr(self, n_workers):
        return self.base_lr * n_workers
