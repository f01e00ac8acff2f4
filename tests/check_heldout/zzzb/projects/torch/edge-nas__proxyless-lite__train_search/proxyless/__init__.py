from .supernet import ProxylessSuperNet
from .latency import LatencyTable
from .arch_step import ArchStepper
