import csv
import json
import os

import numpy as np
import torch


def load_config(path):
    with open(path) as f:
        return json.load(f)


def load_features(path):
    d = np.load(path)
    return (torch.tensor(d["x_train"], dtype=torch.float32), torch.tensor(d["y_train"], dtype=torch.long),
            torch.tensor(d["x_test"], dtype=torch.float32), torch.tensor(d["y_test"], dtype=torch.long))


def save_round(out, rnd, model, labeled, pool):
    torch.save(model.state_dict(), os.path.join(out, "model_round%03d.pt" % rnd))
    np.savez(os.path.join(out, "indices_round%03d.npz" % rnd), labeled=np.array(labeled), pool=np.array(pool))


def write_table(rows, path):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["round", "n_labeled", "acc", "nll"])
        w.writeheader()
        for r in rows:
            w.writerow(r)
