from .options import Options  # noqa
