from .config import FinetuneConfig, load_config

__all__ = ["FinetuneConfig", "load_config"]
