import keras
from keras import ops


def soft_dice(y_true, y_pred, smooth=1.0):
    # y_true: int labels (B, H, W); y_pred: softmax (B, H, W, C); foreground classes only
    n = ops.shape(y_pred)[-1]
    onehot = ops.one_hot(ops.cast(y_true, "int32"), n)
    inter = ops.sum(onehot * y_pred, axis=(0, 1, 2))
    denom = ops.sum(onehot + y_pred, axis=(0, 1, 2))
    return ops.mean(((2.0 * inter + smooth) / (denom + smooth))[1:])


def dice_ce_loss(y_true, y_pred):
    ce = keras.losses.sparse_categorical_crossentropy(y_true, y_pred)
    return ops.mean(ce) + 1.0 - soft_dice(y_true, y_pred)


def dice(y_true, y_pred):
    return soft_dice(y_true, y_pred, smooth=1e-5)
