from .vocab import build_shared_vocab
from .dataset import line_dataset, count_lines
