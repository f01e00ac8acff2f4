import json
import os


def read_vocab(path):
    with open(path) as f:
        return json.load(f)


def export_model(model, model_dir, metrics):
    os.makedirs(model_dir, exist_ok=True)
    model.save(os.path.join(model_dir, "churn_mlp.keras"))
    with open(os.path.join(model_dir, "metrics.json"), "w") as f:
        json.dump(metrics, f, indent=2)
