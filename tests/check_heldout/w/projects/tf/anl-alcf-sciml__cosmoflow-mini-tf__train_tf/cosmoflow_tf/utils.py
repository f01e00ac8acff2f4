import dataclasses
import json
import logging
import os
import socket
import sys


def setup_logging(rank, level=logging.INFO):
    fmt = f"%(asctime)s [r{rank}@{socket.gethostname()}] %(levelname)s %(message)s"
    logging.basicConfig(stream=sys.stdout, level=level if rank == 0 else logging.WARNING, format=fmt)
    return logging.getLogger("cosmoflow_tf")


def dump_run_info(cfg, n_train, n_val, path):
    info = dataclasses.asdict(cfg)
    info.update(world_size=getattr(cfg, "world_size", 1), n_train_per_rank=int(n_train),
                n_val_per_rank=int(n_val), slurm_job=os.environ.get("PBS_JOBID", "local"))
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        json.dump(info, f, indent=2)
    return info
