import keras
from keras import ops


def binary_focal_loss(gamma=2.0, alpha=0.25):
    def loss(y_true, y_pred):
        y_true = ops.cast(ops.reshape(y_true, ops.shape(y_pred)), y_pred.dtype)
        p = ops.clip(y_pred, 1e-7, 1 - 1e-7)
        pt = ops.where(y_true > 0.5, p, 1 - p)
        at = ops.where(y_true > 0.5, alpha, 1 - alpha)
        return ops.mean(-at * (1 - pt) ** gamma * ops.log(pt))
    loss.__name__ = "binary_focal_loss"
    return loss
