import argparse
from dataclasses import dataclass, asdict


@dataclass
class Options:
    num_proc: int = 2
    hosts: str = ""
    data_dir: str = ""
    patch: int = 64
    n_train: int = 256
    n_val: int = 64
    batch_size: int = 16
    accum: int = 2
    lr: float = 2e-4
    epochs: int = 20
    amp: bool = True
    fp16_allreduce: bool = False
    noise_sigma: float = 0.1
    out: str = "./ct_runs"
    seed: int = 7

    @classmethod
    def from_cli(cls, argv=None):
        p = argparse.ArgumentParser("ct denoise (horovod.run launcher)")
        for k, v in asdict(cls()).items():
            flag = "--" + k.replace("_", "-")
            if isinstance(v, bool):
                p.add_argument(flag, type=lambda s: s.lower() in ("1", "true", "yes"), default=v)
            else:
                p.add_argument(flag, type=type(v), default=v)
        return cls(**vars(p.parse_args(argv)))
