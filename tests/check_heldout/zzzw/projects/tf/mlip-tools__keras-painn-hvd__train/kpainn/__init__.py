from .model import PaiNN  # noqa
