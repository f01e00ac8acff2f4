import csv
import json
import os
import time


class ResultsWriter:
    """Leaderboard files for a tuning run (call from one process only)."""

    def __init__(self, out_dir, space_name="fashion-cnn"):
        self.out_dir = out_dir
        self.space_name = space_name
        self.started = time.time()
        os.makedirs(out_dir, exist_ok=True)

    def _rows(self, trials):
        board = sorted((t for t in trials if t.status == "done"), key=lambda t: -t.score)
        return [{"rank": i + 1, "trial": t.trial_id, "score": round(t.score, 5), **t.hp}
                for i, t in enumerate(board)]

    def write(self, trials):
        rows = self._rows(trials)
        with open(os.path.join(self.out_dir, "leaderboard.json"), "w") as f:
            json.dump({"space": self.space_name, "elapsed_s": time.time() - self.started,
                       "trials": rows}, f, indent=2)
        if rows:
            with open(os.path.join(self.out_dir, "leaderboard.csv"), "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(rows[0]))
                w.writeheader()
                w.writerows(rows)
        return rows

    def summary(self, trials, top=3):
        rows = self._rows(trials)[:top]
        lines = [f"{r['rank']:>2}. trial {r['trial']:>3}  score {r['score']:.4f}  "
                 f"filters={r['filters']} blocks={r['blocks']} lr={r['lr']:g}" for r in rows]
        return "\n".join(lines)
