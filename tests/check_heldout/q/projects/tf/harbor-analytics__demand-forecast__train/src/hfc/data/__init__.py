from .pipeline import make_windows, to_dataset  # noqa: F401
