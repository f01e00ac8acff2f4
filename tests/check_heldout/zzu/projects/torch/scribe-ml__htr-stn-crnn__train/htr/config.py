import argparse
from dataclasses import dataclass, field, fields


@dataclass
class TrainConfig:
    data_root: str = "data/iam_lines"
    real_list: str = "splits/iam_train.txt"
    synth_list: str = "splits/synth_train.txt"
    val_list: str = "splits/iam_val.txt"
    synth_ratio: float = 0.5
    img_height: int = 48
    img_width: int = 384
    batch_size: int = 32
    epochs: int = 60
    lr: float = 5e-4
    stn_lr: float = 1e-4
    weight_decay: float = 0.0
    out_dir: str = "checkpoints/htr"
    save_every: int = 1
    resume: str = ""
    # filled in at runtime
    rank: int = 0
    local_rank: int = 0
    world_size: int = 1
    extra: dict = field(default_factory=dict)


def parse_config(argv=None):
    parser = argparse.ArgumentParser("htr")
    for f in fields(TrainConfig):
        if f.name in ("rank", "local_rank", "world_size", "extra"):
            continue
        parser.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default)
    return TrainConfig(**vars(parser.parse_args(argv)))
