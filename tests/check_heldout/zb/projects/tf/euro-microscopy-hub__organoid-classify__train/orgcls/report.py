import json
import os

import numpy as np

PHENOTYPES = ("cystic", "budding", "compact", "disorganised", "dead")


def confusion(y_true, y_pred, n):
    m = np.zeros((n, n), dtype=np.int64)
    np.add.at(m, (y_true, y_pred), 1)
    return m


def write_report(model, images, labels, cfg, val_every=10):
    """Full held-out split (same rule as data.make_split), evaluated in one process."""
    val = np.arange(len(labels)) % val_every == 0
    probs = model.predict(images[val], batch_size=256, verbose=0)
    cm = confusion(labels[val], probs.argmax(1), cfg.n_classes)
    recall = cm.diagonal() / np.maximum(cm.sum(1), 1)
    report = {"accuracy": float(cm.diagonal().sum() / cm.sum()),
              "recall": {p: float(r) for p, r in zip(PHENOTYPES, recall)},
              "confusion": cm.tolist()}
    with open(os.path.join(cfg.out_dir, "val_report.json"), "w") as f:
        json.dump(report, f, indent=2)
    return report
