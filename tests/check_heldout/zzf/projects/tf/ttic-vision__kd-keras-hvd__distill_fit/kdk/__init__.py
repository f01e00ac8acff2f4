from .distiller import Distiller  # noqa: F401
