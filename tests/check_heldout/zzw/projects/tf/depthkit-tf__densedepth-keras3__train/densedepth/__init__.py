from .model import build_densedepth
from .losses import depth_loss, abs_rel, rmse
