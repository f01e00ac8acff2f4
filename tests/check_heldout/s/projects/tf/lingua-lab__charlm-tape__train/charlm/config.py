import yaml


def load_yaml(path, **overrides):
    with open(path) as f:
        cfg = yaml.safe_load(f)
    for key, value in overrides.items():
        section, name = key.split("__")
        cfg[section][name] = value
    return cfg
