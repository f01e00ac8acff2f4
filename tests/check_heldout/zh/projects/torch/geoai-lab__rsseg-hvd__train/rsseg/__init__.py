from .builder import MODELS, build_model, build_optimizer
from .datasets import build_loader
from .hooks import CheckpointHook, LoggerHook

__all__ = ['MODELS', 'build_model', 'build_optimizer', 'build_loader',
           'CheckpointHook', 'LoggerHook']
