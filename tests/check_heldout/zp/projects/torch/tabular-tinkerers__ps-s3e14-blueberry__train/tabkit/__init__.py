"""Small helpers shared by our playground-series notebooks (copied from the s3e11 repo)."""
from .folds import binned_stratified_folds
from .model import TabMLP

__all__ = ["binned_stratified_folds", "TabMLP"]
