import yaml


class YParams(dict):
    """Dict with attribute access, loaded from one named section of a YAML file."""

    def __init__(self, yaml_path, section, **overrides):
        with open(yaml_path) as f:
            conf = yaml.safe_load(f)[section]
        super().__init__(conf)
        self.update({k: v for k, v in overrides.items() if v is not None})

    def __getattr__(self, k):
        try:
            return self[k]
        except KeyError:
            raise AttributeError(k)

    def __setattr__(self, k, v):
        self[k] = v
