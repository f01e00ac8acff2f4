"""Run reports consumed by the model registry job."""
import json
import os
import platform
import time


def run_header(cfg, workers):
    return {
        "model": "revsent_bigru",
        "workers": workers,
        "global_batch": cfg.batch_size * workers,
        "host": platform.node(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }


def write_metrics(out_dir, header, **metrics):
    os.makedirs(out_dir, exist_ok=True)
    payload = dict(header)
    payload["metrics"] = {k: float(v) for k, v in metrics.items()}
    with open(os.path.join(out_dir, "metrics.json"), "w") as f:
        json.dump(payload, f, indent=2)
    return payload
