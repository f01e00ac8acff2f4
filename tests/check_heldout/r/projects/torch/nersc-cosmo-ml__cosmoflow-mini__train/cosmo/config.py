"""Run configuration. Edit the defaults here; train.py overrides a few from the command line."""
from dataclasses import dataclass, field


@dataclass
class RunConfig:
    data_file: str = "/global/cfs/cdirs/m3363/cosmoflow/cubes_128_a10.h5"
    out_dir: str = "runs/cosmoflow"
    val_fraction: float = 0.1
    # global batch over the whole job, divided evenly between the ranks in train.py
    global_batch: int = 64
    epochs: int = 30
    lr: float = 2e-3          # tuned for global_batch = 64, so it does not depend on the rank count
    lr_decay_epochs: tuple = (15, 25)
    lr_decay_factor: float = 0.1
    n_filters: int = 16
    dropout: float = 0.1
    seed: int = 1234
    threads: int = 4
    ckpt_every: int = 5
    target_names: list = field(default_factory=lambda: ["Omega_m", "sigma_8", "N_spec", "H_0"])
