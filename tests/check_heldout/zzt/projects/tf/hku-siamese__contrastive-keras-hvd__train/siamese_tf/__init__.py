from .network import build_siamese
from .losses import contrastive_loss, pair_accuracy
