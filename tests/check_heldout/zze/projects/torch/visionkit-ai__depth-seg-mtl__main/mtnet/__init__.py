from .models import SegDepthNet
from .losses import UncertaintyWeighting
