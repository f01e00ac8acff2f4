import yaml


class Config(dict):
    """dict with attribute access, loaded from YAML."""

    def __getattr__(self, k):
        v = self[k]
        return Config(v) if isinstance(v, dict) else v


def load(path, overrides=()):
    with open(path) as f:
        cfg = yaml.safe_load(f)
    for ov in overrides:
        key, val = ov.split("=", 1)
        node = cfg
        keys = key.split(".")
        for k in keys[:-1]:
            node = node[k]
        node[keys[-1]] = yaml.safe_load(val)
    return Config(cfg)
