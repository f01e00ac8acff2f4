from textcls.config import DistConfig, TrainConfig  # noqa: F401
