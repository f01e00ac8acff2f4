"""Everything that comes from the batch system."""
import os
from dataclasses import dataclass


def select_gpu():
    # Slurm numbers the tasks of the job; give each task the GPU with its number
    os.environ["CUDA_VISIBLE_DEVICES"] = os.environ.get("SLURM_PROCID", "0")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


@dataclass
class JobConfig:
    data_dir: str
    epochs: int
    batch: int
    lr: float
    image_size: int
    weights: str
    job_id: str

    @classmethod
    def from_env(cls):
        e = os.environ
        return cls(
            data_dir=e.get("FLOWERS_DIR", os.path.join(e.get("LOCAL_SCRATCH", "/scratch/project_2001659"), "flowers")),
            epochs=int(e.get("EPOCHS", 10)),
            batch=int(e.get("BATCH", 32)),
            lr=float(e.get("LR", 1e-4)),
            image_size=int(e.get("IMG", 224)),
            weights=e.get("WEIGHTS", "/projappl/project_2001659/mobilenet_v2_imagenet_notop.h5"),
            job_id=e.get("SLURM_JOB_ID", "local"),
        )
