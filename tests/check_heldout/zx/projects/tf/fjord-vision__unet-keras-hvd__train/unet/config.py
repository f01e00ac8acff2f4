from dataclasses import dataclass

import horovod.tensorflow.keras as hvd


@dataclass
class TrainConfig:
    data_dir: str = "data/nuclei"
    out_dir: str = "runs/unet"
    image_size: int = 256
    base_filters: int = 32
    batch_size: int = 8          # per GPU
    epochs: int = 50
    # linear scaling rule: lr grows with the number of workers
    lr: float = 1e-3 * hvd.size()
    seed: int = 42
