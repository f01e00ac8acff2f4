"""Grab-bag of helpers shared by the churn notebooks.

Everything lives here so a notebook can just do `from utils import *`.
Config is read once at import from settings.env (KEY=VALUE lines) with env vars taking priority.
"""
import os
import json
import time
import random

import numpy as np
import torch
import horovod.torch as hvd


# ---------------------------------------------------------------- config
def _read_env_file(path):
    vals = {}
    if not os.path.exists(path):
        return vals
    with open(path) as fh:
        for line in fh:
            line = line.strip()
            if not line or line.startswith("#") or "=" not in line:
                continue
            key, val = line.split("=", 1)
            vals[key.strip()] = val.strip().strip('"').strip("'")
    return vals


_ENV = _read_env_file(os.environ.get("CHURN_ENV_FILE", "settings.env"))


def _get(key, default, cast=str):
    raw = os.environ.get(key, _ENV.get(key))
    if raw is None:
        return default
    if cast is bool:
        return raw.lower() in ("1", "true", "yes", "y")
    return cast(raw)


CFG = {
    "data_path": _get("DATA_PATH", "data/churn_clean.csv"),
    "val_frac": _get("VAL_FRAC", 0.2, float),
    "batch_size": _get("BATCH_SIZE", 256, int),
    "hidden": _get("HIDDEN", 128, int),
    "lr": _get("LR", 1e-3, float),
    "epochs": _get("EPOCHS", 15, int),
    "seed": _get("SEED", 1234, int),
    "resume": _get("RESUME", False, bool),
    "ckpt_path": _get("CKPT_PATH", "checkpoints/churn_mlp.pt"),
    "run_dir": _get("RUN_DIR", "runs/churn"),
}

# global state, filled in by the setup cell
STATE = {"rank": 0, "world": 1, "device": torch.device("cpu"), "t0": time.time()}


# ---------------------------------------------------------------- logging
def log(msg, rank=hvd.rank(), all_ranks=False):
    """Timestamped print, rank 0 only unless all_ranks=True."""
    if all_ranks or rank == 0:
        stamp = time.strftime("%H:%M:%S")
        print(f"[{stamp}][r{rank}] {msg}", flush=True)


def elapsed():
    return time.time() - STATE["t0"]


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def dump_json(obj, path):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as fh:
        json.dump(obj, fh, indent=2, default=str)


# ---------------------------------------------------------------- train helpers
@torch.no_grad()
def evaluate(model, loader, crit, device):
    model.eval()
    tot_loss, correct, n = 0.0, 0, 0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        logits = model(xb).squeeze(1)
        tot_loss += crit(logits, yb).item() * len(yb)
        correct += ((logits > 0).float() == yb).sum().item()
        n += len(yb)
    return tot_loss / max(n, 1), correct / max(n, 1)


def save_checkpoint(path, model, opt, epoch):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({"model": model.state_dict(), "optim": opt.state_dict(),
                "epoch": epoch, "cfg": CFG}, path)


def load_checkpoint(path, model, opt=None):
    ckpt = torch.load(path, map_location="cpu")
    model.load_state_dict(ckpt["model"])
    if opt is not None and "optim" in ckpt:
        opt.load_state_dict(ckpt["optim"])
    return ckpt.get("epoch", 0)
