from .model import DrumVAE  # noqa: F401
