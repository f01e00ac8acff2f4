from dataclasses import dataclass


@dataclass(frozen=True)
class Cfg:
    image_dir: str = "/datasets/chest_xray"
    img_size: int = 160
    batch_size: int = 24            # per process
    lr: float = 5e-4                # reference lr for one process
    epochs: int = 18
    warmup_epochs: int = 2
    save_dir: str = "outputs/xray"
    classes: tuple = ("NORMAL", "PNEUMONIA")


def from_args(args):
    overrides = {k: v for k, v in vars(args).items() if v is not None and k in Cfg.__dataclass_fields__}
    return Cfg(**overrides)
