"""The old home of hvdkit.models.resnet_torch (kept so existing imports work; it needs Horovod, the new one not)."""
from hvdkit.models.resnet_torch import CHANNELS_LAST_FROM, LAYERS, BasicBlock, ResNet, count, resnet18, resnet34

__all__ = ["CHANNELS_LAST_FROM", "LAYERS", "BasicBlock", "ResNet", "count", "resnet18", "resnet34"]
