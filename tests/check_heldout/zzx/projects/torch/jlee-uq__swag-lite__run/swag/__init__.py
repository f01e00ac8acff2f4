from .posterior import SWAGDiag  # noqa: F401
