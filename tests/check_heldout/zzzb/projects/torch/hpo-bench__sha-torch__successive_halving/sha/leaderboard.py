import csv
import json
import os
import time


class Leaderboard:
    """Keeps every (candidate, rung, score) and decides who is promoted."""

    def __init__(self, eta=3):
        self.eta = eta
        self.rows = []

    def record(self, rung, cfg, score, epochs):
        self.rows.append({"rung": rung, "cid": cfg["cid"], "score": float(score),
                          "epochs": epochs, "time": time.time()})

    def promote(self, rung, trainers, scores):
        order = sorted(range(len(trainers)), key=lambda i: scores[i], reverse=True)
        keep = max(1, len(trainers) // self.eta)
        return [trainers[i] for i in order[:keep]]

    def best(self):
        last = max(r["rung"] for r in self.rows)
        return max((r for r in self.rows if r["rung"] == last), key=lambda r: r["score"])

    def dump(self, out_dir):
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, "leaderboard.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["rung", "cid", "score", "epochs", "time"])
            w.writeheader()
            w.writerows(self.rows)
        with open(os.path.join(out_dir, "best.json"), "w") as f:
            json.dump(self.best(), f, indent=2)
