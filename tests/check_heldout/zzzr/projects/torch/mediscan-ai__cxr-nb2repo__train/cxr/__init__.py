from .options import parse_opts  # noqa: F401
