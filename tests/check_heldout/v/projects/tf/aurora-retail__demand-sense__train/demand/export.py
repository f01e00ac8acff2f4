"""Artifacts the forecasting service picks up: the .keras model and a small model card."""
import datetime
import json
import os
import platform

from demand import settings


def write_artifacts(model, artifact_dir, metrics, num_workers):
    os.makedirs(artifact_dir, exist_ok=True)
    model_path = os.path.join(artifact_dir, "demand_mlp.keras")
    model.save(model_path)
    card = {
        "model": model.name,
        "created": datetime.datetime.utcnow().isoformat(timespec="seconds") + "Z",
        "host": platform.node(),
        "workers": num_workers,
        "batch_per_worker": settings.BATCH_PER_WORKER,
        "params": int(model.count_params()),
        "metrics": metrics,
        "target": "log1p(units)",
    }
    with open(os.path.join(artifact_dir, "model_card.json"), "w") as f:
        json.dump(card, f, indent=2)
    return model_path
