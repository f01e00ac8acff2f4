from .lars import LARSUpdate  # noqa: F401
