"""Settings: command-line flags, with defaults taken from the Slurm job where that makes sense."""
import argparse
import os


def get_settings(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--csv", default=os.path.join(os.environ.get("SNIC_TMP", "/tmp"), "power_plant.csv"))
    p.add_argument("--epochs", type=int, default=int(os.environ.get("EPOCHS", 60)))
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--ckpt-dir", default=os.path.join("ckpt", os.environ.get("SLURM_JOB_ID", "interactive")))
    p.add_argument("--ckpt-every", type=int, default=10)
    return p.parse_args(argv)
