from .trainer import TapeTrainer  # noqa: F401
