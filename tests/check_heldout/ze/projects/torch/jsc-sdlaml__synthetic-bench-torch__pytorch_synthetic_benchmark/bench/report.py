import csv
import os

import torch

import horovod.torch as hvd


def log(msg):
    if hvd.rank() == 0:
        print(msg, flush=True)


def write_csv(args, nranks, mean, conf):
    if hvd.rank() != 0:
        return
    os.makedirs(args.results_dir, exist_ok=True)
    path = os.path.join(args.results_dir, f"{args.job_id}.csv")
    new = not os.path.exists(path)
    with open(path, "a", newline="") as f:
        w = csv.writer(f)
        if new:
            w.writerow(["model", "ranks", "batch_size", "img_sec_per_gpu", "conf", "img_sec_total"])
        w.writerow([args.model, nranks, args.batch_size, f"{mean:.2f}", f"{conf:.2f}", f"{nranks * mean:.2f}"])


def save_model(model, path):
    if hvd.rank() == 0:
        torch.save(model.state_dict(), path)
