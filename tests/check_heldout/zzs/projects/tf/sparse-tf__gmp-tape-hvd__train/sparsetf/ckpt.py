import json
import os

import numpy as np


def save_sparse(model, pruner, logdir, step):
    """Weights, masks and a small manifest, written side by side so an export can check they match."""
    os.makedirs(logdir, exist_ok=True)
    model.save_weights(os.path.join(logdir, "gmp.weights.h5"))
    np.savez_compressed(os.path.join(logdir, "masks.npz"),
                        **{k.path.replace("/", "__"): m.numpy() for k, m in zip(pruner.kernels, pruner.masks)})
    manifest = {
        "step": int(step),
        "sparsity": pruner.global_sparsity(),
        "kernels": [k.path for k in pruner.kernels],
    }
    with open(os.path.join(logdir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
