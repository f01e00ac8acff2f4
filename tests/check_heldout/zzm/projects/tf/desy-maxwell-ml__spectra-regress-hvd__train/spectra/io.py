import os

import horovod.tensorflow as hvd


def save_weights(model, run_dir, tag):
    if hvd.rank() != 0:
        return None
    os.makedirs(run_dir, exist_ok=True)
    path = os.path.join(run_dir, f"spectra_{tag}.weights.h5")
    model.save_weights(path)
    return path
