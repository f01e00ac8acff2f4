from .config import TrialConfig  # noqa: F401
