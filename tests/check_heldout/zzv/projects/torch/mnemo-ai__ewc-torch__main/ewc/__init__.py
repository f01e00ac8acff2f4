from .nets import MultiHeadMLP
from .penalty import EWC
