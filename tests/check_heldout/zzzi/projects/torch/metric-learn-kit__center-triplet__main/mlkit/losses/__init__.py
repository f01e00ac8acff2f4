from .center import CenterLoss
from .triplet import triplet_semihard
