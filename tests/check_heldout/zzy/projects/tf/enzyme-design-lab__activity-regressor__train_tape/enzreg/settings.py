from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    dms_url: str = "https://zenodo.example.org/record/7041/files/PafA_DMS_kcat_km.csv"
    cache_root: str = "/local_scratch/enzreg"
    wild_type_len: int = 526
    global_batch: int = 256        # split over all workers
    lr: float = 2e-3
    epochs: int = 40
    val_fraction: float = 0.15
    split_seed: int = 2024
    ckpt_dir: str = "ckpts/pafa_cnn"
