"""deepar-lite: a small autoregressive quantile LSTM for univariate series."""
from .model import QuantileLSTM
from .losses import pinball_loss

__all__ = ["QuantileLSTM", "pinball_loss"]
