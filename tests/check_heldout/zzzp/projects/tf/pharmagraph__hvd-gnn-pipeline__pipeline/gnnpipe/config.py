import argparse
import os

DEFAULT_YAML = os.path.join(os.path.dirname(__file__), "..", "configs", "default.yaml")


def _read_yaml(path):
    out = {}
    with open(path) as f:
        for line in f:
            line = line.split("#")[0].strip()
            if not line:
                continue
            k, v = [t.strip() for t in line.split(":", 1)]
            for cast in (int, float):
                try:
                    v = cast(v)
                    break
                except ValueError:
                    pass
            out[k] = v
    return out


def get_config(argv=None):
    p = argparse.ArgumentParser("bace pipeline")
    p.add_argument("--config", default=DEFAULT_YAML)
    p.add_argument("--stages", default="prep,train,eval")
    p.add_argument("--epochs", type=int)
    p.add_argument("--lr", type=float)
    p.add_argument("--work-dir")
    a = p.parse_args(argv)
    cfg = _read_yaml(a.config)
    for k in ("epochs", "lr", "work_dir"):
        if getattr(a, k) is not None:
            cfg[k] = getattr(a, k)
    cfg["stages"] = a.stages.split(",")
    return argparse.Namespace(**cfg)
