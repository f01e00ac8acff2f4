import dataclasses


@dataclasses.dataclass
class TrainConfig:
    blur_glob: str = "GoPro/train/*/blur/*.png"
    sharp_glob: str = "GoPro/train/*/sharp/*.png"
    val_blur_glob: str = "GoPro/test/*/blur/*.png"
    val_sharp_glob: str = "GoPro/test/*/sharp/*.png"
    global_batch: int = 32          # split across workers
    crop: int = 256
    lr: float = 1e-4                # tuned for the global batch
    iterations: int = 300_000
    eval_every: int = 5_000
    ema_decay: float = 0.999
    fft_weight: float = 0.1
    ckpt_dir: str = "checkpoints/mimo_unet"
