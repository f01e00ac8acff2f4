from .defaults import get_cfg  # noqa: F401
