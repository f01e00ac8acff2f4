"""gptlab: a very small GPT pre-training stack (byte-level, Horovod)."""
__version__ = "0.3.1"
