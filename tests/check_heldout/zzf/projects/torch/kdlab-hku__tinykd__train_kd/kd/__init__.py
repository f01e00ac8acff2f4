"""tinykd: small knowledge-distillation recipes (teacher -> student) for CIFAR."""
__version__ = "0.3.1"
