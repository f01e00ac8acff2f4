from .imagenette import build_loaders
