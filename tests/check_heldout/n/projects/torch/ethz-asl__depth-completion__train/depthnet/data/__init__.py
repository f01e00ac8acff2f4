from .loader import build_loader

__all__ = ["build_loader"]
