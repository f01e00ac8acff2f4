import json
import os

import numpy as np


def save(model, step, out_dir, num_shards):
    d = os.path.join(out_dir, "ckpt-%08d" % step)
    os.makedirs(d, exist_ok=True)
    table = model.table.embeddings.numpy()
    bounds = np.linspace(0, table.shape[0], num_shards + 1).astype(np.int64)
    for s in range(num_shards):
        np.save(os.path.join(d, "table-%03d.npy" % s), table[bounds[s]:bounds[s + 1]])
    dense = {v.name + ":%d" % i: v.numpy() for i, v in enumerate(model.dense_vars)}
    np.savez(os.path.join(d, "dense.npz"), **dense)
    with open(os.path.join(d, "index.json"), "w") as f:
        json.dump({"step": step, "bounds": bounds.tolist()}, f)
    return d
