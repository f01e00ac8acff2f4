from tbert.config import PretrainConfig  # noqa: F401
