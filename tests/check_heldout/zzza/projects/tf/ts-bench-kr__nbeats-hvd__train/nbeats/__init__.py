from .model import NBeats
