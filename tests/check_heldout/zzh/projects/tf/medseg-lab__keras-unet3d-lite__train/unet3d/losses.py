import keras
from keras import ops


def soft_dice(y_true, y_pred, eps=1e-5):
    y_true = ops.one_hot(ops.cast(ops.squeeze(y_true, -1), "int32"), ops.shape(y_pred)[-1])
    inter = ops.sum(y_true * y_pred, axis=(1, 2, 3))
    denom = ops.sum(y_true + y_pred, axis=(1, 2, 3))
    return ops.mean((2.0 * inter + eps) / (denom + eps))


def dice_ce_loss(y_true, y_pred):
    ce = keras.losses.sparse_categorical_crossentropy(y_true, y_pred)
    return ops.mean(ce) + 1.0 - soft_dice(y_true, y_pred)


def dice_metric(y_true, y_pred):
    return soft_dice(y_true, y_pred)
dice_metric.__name__ = "dice"
