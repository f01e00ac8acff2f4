import logging
import os


def is_chief():
    """True on the process that should write files (works under torchrun, SLURM and horovodrun)."""
    return int(os.environ.get("RANK", os.environ.get("SLURM_PROCID", 0))) == 0


def get_logger(name="satchange"):
    logging.basicConfig(format="%(asctime)s %(levelname)s %(message)s",
                        level=logging.INFO if is_chief() else logging.WARNING)
    return logging.getLogger(name)
