import logging
import sys

import yaml


def load_yaml(path, overrides=None):
    with open(path) as fh:
        cfg = yaml.safe_load(fh)
    for item in overrides or []:
        dotted, value = item.split("=", 1)
        node = cfg
        *parents, leaf = dotted.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = yaml.safe_load(value)
    return cfg


def get_logger(rank):
    log = logging.getLogger("gptmini")
    if not log.handlers:
        h = logging.StreamHandler(sys.stdout)
        h.setFormatter(logging.Formatter(f"[r{rank}] %(asctime)s %(message)s", "%H:%M:%S"))
        log.addHandler(h)
    log.setLevel(logging.INFO if rank == 0 else logging.WARNING)
    return log
