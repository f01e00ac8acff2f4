import yaml


class Config(dict):
    """dict with attribute access, nested."""

    def __getattr__(self, k):
        try:
            v = self[k]
        except KeyError:
            raise AttributeError(k)
        return Config(v) if isinstance(v, dict) and not isinstance(v, Config) else v

    def __setattr__(self, k, v):
        self[k] = v

    def __getitem__(self, k):
        v = dict.__getitem__(self, k)
        if isinstance(v, dict) and not isinstance(v, Config):
            v = Config(v)
            dict.__setitem__(self, k, v)
        return v

    @classmethod
    def load(cls, path):
        with open(path) as f:
            return cls(yaml.safe_load(f))
