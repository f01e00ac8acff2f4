from .gpu import configure_devices  # noqa: F401
