from dataclasses import dataclass


@dataclass
class Config:
    data_dir: str = "/lustre/proj/wx/z500_t850_5p625"
    channels: int = 2
    batch_size: int = 16          # per rank
    lr: float = 3e-4              # single-GPU reference
    epochs_onestep: int = 40
    epochs_rollout: int = 10
    rollout_steps: int = 4
    filters: int = 64
    ckpt_dir: str = "/lustre/proj/wx/checkpoints/tiny_emulator"
    log_every: int = 100
