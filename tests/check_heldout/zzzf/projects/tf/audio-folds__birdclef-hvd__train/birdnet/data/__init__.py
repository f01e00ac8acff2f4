from .folds import FoldSplitter
from .spec import SpecSequence
