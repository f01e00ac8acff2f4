import csv
import json
import os


def write_result(out_dir, name, history, extra):
    os.makedirs(out_dir, exist_ok=True)
    history = {k: [float(v) for v in vals] for k, vals in history.items()}
    row = {"backbone": name, **extra,
           "best_val_accuracy": max(history["val_accuracy"]),
           "epochs_run": len(history["loss"])}
    with open(os.path.join(out_dir, f"{name}.json"), "w") as f:
        json.dump({"summary": row, "history": history}, f, indent=2)
    table = os.path.join(out_dir, "benchmark.csv")
    new = not os.path.exists(table)
    with open(table, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(row))
        if new:
            w.writeheader()
        w.writerow(row)
