from .data import load_cifar100
from .models import build_model, MODEL_NAMES
from .callbacks import build_callbacks
