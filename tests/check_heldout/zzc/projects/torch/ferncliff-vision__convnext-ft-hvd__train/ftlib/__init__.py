"""Small helpers for fine-tuning pretrained backbones."""
__version__ = "0.3.0"
