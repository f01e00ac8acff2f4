from datasets.loaders import build_loaders  # noqa: F401
