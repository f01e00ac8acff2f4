from dataclasses import dataclass

import horovod.tensorflow as hvd


@dataclass
class DistConfig:
    """Who am I in the job (filled from Horovod)."""
    world_size: int = hvd.size()
    rank: int = hvd.rank()
    local_rank: int = hvd.local_rank()

    @property
    def is_chief(self) -> bool:
        return self.rank == 0


@dataclass
class TrainConfig:
    data_dir: str = "data/imdb_tok"
    out_dir: str = "out/textcls"
    vocab_size: int = 30000
    max_len: int = 256
    batch_size: int = 32          # per replica
    lr: float = 5e-5              # single-GPU value; scaled by world size
    epochs: int = 4
    log_every: int = 100
