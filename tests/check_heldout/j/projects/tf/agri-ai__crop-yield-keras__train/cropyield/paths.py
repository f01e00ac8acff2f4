import os
import time


def run_dir(base, tag=None):
    tag = tag or time.strftime("%Y%m%d-%H%M%S")
    path = os.path.join(base, tag)
    os.makedirs(path, exist_ok=True)
    return path


def save_args(path, args):
    import json
    with open(os.path.join(path, "args.json"), "w") as f:
        json.dump(vars(args), f, indent=2, sort_keys=True)
