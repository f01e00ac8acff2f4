from .segnet import TinySegNet
