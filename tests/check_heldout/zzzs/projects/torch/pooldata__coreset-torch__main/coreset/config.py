import json
import os

DEFAULT_CONFIG = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                              "configs", "cifar_feats.json")


def load(path, cli=None):
    with open(path) as f:
        cfg = json.load(f)
    if cli is not None:
        for k in ("out_dir", "cycles"):
            v = getattr(cli, k, None)
            if v is not None:
                cfg[k] = v
    return cfg
