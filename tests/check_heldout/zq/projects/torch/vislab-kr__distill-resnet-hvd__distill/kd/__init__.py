"""Small knowledge-distillation toolkit used by distill.py."""
__version__ = "0.3.1"
