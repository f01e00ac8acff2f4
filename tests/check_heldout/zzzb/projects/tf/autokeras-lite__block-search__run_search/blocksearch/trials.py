import json
import os
import random

from .search_space import SEARCH_SPACE


def sample_specs(n, seed):
    rng = random.Random(seed)
    seen, specs = set(), []
    while len(specs) < n:
        spec = {k: rng.choice(v) for k, v in SEARCH_SPACE.items()}
        key = json.dumps(spec, sort_keys=True)
        if key not in seen:
            seen.add(key)
            specs.append(spec)
    return specs


def save_leaderboard(results, path):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    results = sorted(results, key=lambda r: -r["val_accuracy"])
    with open(path, "w") as f:
        json.dump(results, f, indent=2)
    return results
