"""The old home of hvdkit.models.resnet_tf (kept so existing imports work; it needs Horovod, the new one not)."""
from hvdkit.models.resnet_tf import LAYERS, FusedBatchNormalization, count, resnet, resnet18, resnet34

__all__ = ["LAYERS", "FusedBatchNormalization", "count", "resnet", "resnet18", "resnet34"]
