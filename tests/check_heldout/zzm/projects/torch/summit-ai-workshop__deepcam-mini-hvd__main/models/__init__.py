from .tiny_deeplab import TinyDeepLab
