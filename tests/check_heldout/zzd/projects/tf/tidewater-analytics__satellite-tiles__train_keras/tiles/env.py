"""Minimal .env support (python-dotenv is not in our base image)."""
import os


def load_dotenv(path=".env", override=False):
    if not os.path.exists(path):
        return {}
    loaded = {}
    with open(path) as fh:
        for line in fh:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("export "):
                line = line[len("export "):]
            key, _, val = line.partition("=")
            key, val = key.strip(), val.strip().strip('"')
            if override or key not in os.environ:
                os.environ[key] = val
                loaded[key] = val
    return loaded


def env_str(key, default):
    return os.environ.get(key, default)


def env_int(key, default):
    return int(os.environ.get(key, default))


def env_float(key, default):
    return float(os.environ.get(key, default))
