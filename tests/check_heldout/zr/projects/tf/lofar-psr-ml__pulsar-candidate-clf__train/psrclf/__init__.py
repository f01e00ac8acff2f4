from .hw import configure_devices  # noqa: F401
