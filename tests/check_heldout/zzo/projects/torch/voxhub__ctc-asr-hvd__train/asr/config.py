from dataclasses import dataclass


@dataclass
class TrainConfig:
    train_manifest: str = "manifests/train-clean-100.tsv"
    valid_manifest: str = "manifests/dev-clean.tsv"
    out_dir: str = "exp/ctc_bilstm"
    n_mels: int = 80
    hidden: int = 512
    layers: int = 4
    batch_size: int = 16
    lr: float = 3e-4
    warmup_steps: int = 2000
    total_steps: int = 60000
    epochs: int = 40
    grad_clip: float = 5.0
    seed: int = 42
