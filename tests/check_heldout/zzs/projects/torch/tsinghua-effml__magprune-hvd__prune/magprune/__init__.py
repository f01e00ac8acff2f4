from .masks import apply_masks, global_magnitude_masks, sparsity
from .checkpoint import save_bundle, load_bundle
