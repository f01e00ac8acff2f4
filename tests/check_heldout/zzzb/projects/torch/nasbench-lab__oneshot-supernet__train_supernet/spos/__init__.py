"""Single-path one-shot (SPOS) supernet for CIFAR-sized inputs."""
from .supernet import SuperNet
from .sampler import UniformPathSampler

__all__ = ["SuperNet", "UniformPathSampler"]
