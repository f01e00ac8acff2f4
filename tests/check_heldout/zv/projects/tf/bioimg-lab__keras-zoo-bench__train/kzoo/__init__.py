from .registry import get_backbone, list_backbones
