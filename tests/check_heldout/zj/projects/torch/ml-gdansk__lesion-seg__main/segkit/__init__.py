from .registry import DATASETS, MODELS, build_from_cfg  # noqa: F401
from . import datasets, models  # noqa: F401  (fill the registries)
