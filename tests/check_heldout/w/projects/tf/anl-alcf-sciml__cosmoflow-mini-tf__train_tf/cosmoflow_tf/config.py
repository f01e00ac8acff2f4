from dataclasses import dataclass


@dataclass
class TFConfig:
    data_file: str = "/lus/grand/projects/datascience/cosmoflow/cosmo_64.h5"
    out_dir: str = "runs/cosmoflow_tf"
    epochs: int = 16
    batch_size: int = 8            # per rank
    lr: float = 1e-3               # single-GPU reference value
    momentum: float = 0.9
    val_fraction: float = 0.1
    seed: int = 1234
    n_targets: int = 4

    def finalize(self, world_size):
        """Adapt the single-GPU settings to the job: linear lr scaling with the number of ranks."""
        self.lr = self.lr * world_size
        self.world_size = world_size
        return self
