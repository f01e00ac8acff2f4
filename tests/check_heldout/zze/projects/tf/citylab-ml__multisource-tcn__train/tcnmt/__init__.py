from .runtime import setup_runtime
