from .model import SchNet
