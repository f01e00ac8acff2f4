import argparse
from dataclasses import dataclass, fields


@dataclass
class TrainConfig:
    data_dir: str = "data/notes"
    output_dir: str = "outputs/clinbert"
    vocab_size: int = 32000
    hidden_size: int = 256
    max_seq_length: int = 256
    per_device_train_batch_size: int = 16
    per_device_eval_batch_size: int = 64
    encoder_lr: float = 3e-5
    head_lr: float = 1e-3
    weight_decay: float = 0.01
    warmup_steps: int = 500
    num_train_epochs: int = 4
    fp16: bool = False
    seed: int = 42


def parse_config(argv=None) -> TrainConfig:
    parser = argparse.ArgumentParser()
    for f in fields(TrainConfig):
        if f.type is bool or f.type == "bool":
            parser.add_argument(f"--{f.name}", action="store_true")
        else:
            parser.add_argument(f"--{f.name}", type=type(f.default), default=f.default)
    return TrainConfig(**vars(parser.parse_args(argv)))
