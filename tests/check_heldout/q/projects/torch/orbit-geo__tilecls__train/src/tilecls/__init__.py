from .registry import build_model, build_optimizer  # noqa: F401

__all__ = ["build_model", "build_optimizer"]
