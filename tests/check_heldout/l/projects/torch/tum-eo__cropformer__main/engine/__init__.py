from .trainer import evaluate, train_one_epoch

__all__ = ["train_one_epoch", "evaluate"]
