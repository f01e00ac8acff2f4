from launchpad.options import parse_args  # noqa: F401
