from .model import BetaVAE  # noqa: F401
