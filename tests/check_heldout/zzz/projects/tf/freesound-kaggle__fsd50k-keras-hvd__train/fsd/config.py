from dataclasses import dataclass


@dataclass
class TrainConfig:
    data_root: str = "/data/FSD50K"
    out_dir: str = "outputs/fsd50k"
    sample_rate: int = 22050
    segment_seconds: float = 1.0
    n_mels: int = 96
    num_classes: int = 200
    global_batch_size: int = 256    # kept fixed whatever the number of GPUs
    base_lr: float = 5e-4           # tuned for the global batch above
    warmup_epochs: int = 3
    epochs: int = 60
    mixup_alpha: float = 0.0

    def per_replica_batch(self, num_replicas):
        return self.global_batch_size // num_replicas

    def scaled_lr(self, num_replicas):
        # linear scaling rule (Goyal et al.)
        return self.base_lr * num_replicas
