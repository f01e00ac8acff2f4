import json
import os

import torch


def is_main_process():
    # works for torchrun and for SLURM launches with RANK exported
    return int(os.environ.get("RANK", 0)) == 0


def save_checkpoint(run_dir, epoch, model, optimizer, metrics):
    if not is_main_process():
        return
    os.makedirs(run_dir, exist_ok=True)
    torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()},
               os.path.join(run_dir, "last.pt"))
    with open(os.path.join(run_dir, "metrics.jsonl"), "a") as f:
        f.write(json.dumps({"epoch": epoch, **metrics}) + "\n")
