from .config import ExperimentConfig  # noqa: F401
