from .freeze import freeze_backbone, unfreeze_all
from .checkpoint import save_checkpoint, maybe_resume
