from .pipeline import make_split
from .net import osnet_like
from .compile import compile_for_training, make_optimizer
