from .unet import build_unet  # noqa: F401
