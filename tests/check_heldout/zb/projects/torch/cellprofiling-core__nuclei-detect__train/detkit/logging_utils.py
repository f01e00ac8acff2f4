import logging
import os
import sys


def get_logger(out_dir, rank, name="nuclei"):
    log = logging.getLogger(name)
    log.setLevel(logging.INFO if rank == 0 else logging.ERROR)
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(message)s")
    h = logging.StreamHandler(sys.stdout)
    h.setFormatter(fmt)
    log.addHandler(h)
    if rank == 0:
        os.makedirs(out_dir, exist_ok=True)
        fh = logging.FileHandler(os.path.join(out_dir, "train.log"))
        fh.setFormatter(fmt)
        log.addHandler(fh)
    return log
