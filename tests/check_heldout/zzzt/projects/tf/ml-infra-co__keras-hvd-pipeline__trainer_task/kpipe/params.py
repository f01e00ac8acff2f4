import argparse
import dataclasses


@dataclasses.dataclass
class TrainParams:
    job_dir: str = "/tmp/kpipe_job"
    num_rows: int = 100000
    num_features: int = 64
    batch_size: int = 512
    epochs: int = 10
    learning_rate: float = 1e-3
    accum_steps: int = 1
    mixed_precision: bool = False
    fp16_allreduce: bool = True
    val_fraction: float = 0.1
    verbose: int = 2

    @classmethod
    def from_argv(cls, argv=None):
        ap = argparse.ArgumentParser()
        for f in dataclasses.fields(cls):
            name = "--" + f.name.replace("_", "-")
            if f.type is bool or f.type == "bool":
                ap.add_argument(name, type=lambda s: s in ("1", "true", "True"), default=f.default)
            else:
                ap.add_argument(name, type=type(f.default), default=f.default)
        return cls(**vars(ap.parse_args(argv)))
