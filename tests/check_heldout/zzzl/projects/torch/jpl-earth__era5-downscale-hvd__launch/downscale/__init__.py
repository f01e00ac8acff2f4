from downscale.options import DEFAULTS  # noqa: F401
