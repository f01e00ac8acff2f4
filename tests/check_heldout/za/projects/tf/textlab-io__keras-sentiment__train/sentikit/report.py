import json
import os
import time

import horovod.tensorflow.keras as hvd


def save_summary(out_dir, params, history):
    """Write the run parameters and the (already worker-averaged) epoch metrics, once."""
    if hvd.rank() != 0:
        return
    os.makedirs(out_dir, exist_ok=True)
    summary = {
        "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
        "workers": hvd.size(),
        "params": params,
        "history": {k: [float(v) for v in vals] for k, vals in history.items()},
    }
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
