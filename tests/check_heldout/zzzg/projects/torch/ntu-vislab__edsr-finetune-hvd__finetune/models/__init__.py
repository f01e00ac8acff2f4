from .edsr import EDSR

__all__ = ["EDSR"]
