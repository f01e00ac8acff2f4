from dataclasses import dataclass


@dataclass
class DiffusionConfig:
    dataset: str = "cifar10"
    image_size: int = 32
    channels: int = 64
    ch_mult: tuple = (1, 2, 2)
    timesteps: int = 1000
    beta_start: float = 1e-4
    beta_end: float = 0.02
    global_batch: int = 128
    lr: float = 2e-4            # Ho et al. 2020, for the global batch of 128
    warmup: int = 5000
    grad_clip: float = 1.0
    ema_decay: float = 0.9999
    total_steps: int = 800_000
    log_every: int = 100
    save_every: int = 10_000
    workdir: str = "./work"
    seed: int = 0


PRESETS = {
    "cifar10": DiffusionConfig(),
    "celeba64": DiffusionConfig(dataset="celeba", image_size=64, channels=96, ch_mult=(1, 2, 2, 2),
                                total_steps=500_000),
}
