"""Training configuration: a dataclass with key=value overrides from the command line."""
from dataclasses import dataclass, asdict


@dataclass
class TrainConfig:
    # model
    vocab_size: int = 256
    block_size: int = 128
    n_layer: int = 4
    n_head: int = 4
    n_embd: int = 256
    dropout: float = 0.1
    activation_checkpointing: bool = True
    # data / optimisation
    data_path: str = "data/tokens.bin"
    micro_batch_size: int = 16
    grad_accum_steps: int = 4
    max_steps: int = 2000
    eval_interval: int = 200
    eval_iters: int = 20
    base_lr: float = 3e-4
    warmup_steps: int = 100
    weight_decay: float = 0.1
    fp16_allreduce: bool = True
    out_dir: str = "runs/gpt"
    seed: int = 1337

    def to_dict(self):
        return asdict(self)


def apply_overrides(cfg, overrides):
    for item in overrides:
        key, value = item.split("=", 1)
        if not hasattr(cfg, key):
            raise KeyError(f"unknown config key {key!r}")
        current = getattr(cfg, key)
        if isinstance(current, bool):
            value = value.lower() in ("1", "true", "yes")
        else:
            value = type(current)(value)
        setattr(cfg, key, value)
    return cfg
