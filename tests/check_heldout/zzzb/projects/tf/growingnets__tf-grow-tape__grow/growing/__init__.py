from .model import build_mlp, widen
from .schedule import GrowthSchedule
