from .env import configure_devices
from .pruning import MaskedModel, sparsity_at
