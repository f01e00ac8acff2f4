from .gpu import setup_devices
from .data import cifar_datasets
from .callbacks import build_callbacks
