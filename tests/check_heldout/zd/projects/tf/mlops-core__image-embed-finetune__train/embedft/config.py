from dataclasses import dataclass

import yaml


@dataclass
class FinetuneConfig:
    run_name: str = "embed-finetune"
    data_path: str = ""
    val_fraction: float = 0.1
    per_worker_batch: int = 32
    base_lr: float = 1e-3
    epochs: int = 5
    checkpoint_prefix: str = "/tmp/embed-finetune/ckpt"
    embed_dim: int = 64

    @classmethod
    def from_yaml(cls, path):
        with open(path) as f:
            raw = yaml.safe_load(f)
        return cls(run_name=raw.get("run_name", cls.run_name),
                   data_path=raw["data"]["path"],
                   val_fraction=raw["data"].get("val_fraction", cls.val_fraction),
                   per_worker_batch=raw["optim"].get("per_worker_batch", cls.per_worker_batch),
                   base_lr=raw["optim"].get("base_lr", cls.base_lr),
                   epochs=raw["optim"].get("epochs", cls.epochs),
                   checkpoint_prefix=raw["output"].get("checkpoint_prefix", cls.checkpoint_prefix))
