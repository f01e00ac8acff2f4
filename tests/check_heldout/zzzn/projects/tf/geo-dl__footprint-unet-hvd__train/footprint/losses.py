import keras
from keras import ops


def bce_dice(y_true, y_pred, smooth=1.0):
    bce = keras.losses.binary_crossentropy(y_true, y_pred)
    inter = ops.sum(y_true * y_pred, axis=(1, 2, 3))
    union = ops.sum(y_true, axis=(1, 2, 3)) + ops.sum(y_pred, axis=(1, 2, 3))
    dice = 1.0 - (2.0 * inter + smooth) / (union + smooth)
    return ops.mean(bce, axis=(1, 2)) + dice


def building_iou():
    return keras.metrics.BinaryIoU(target_class_ids=[1], threshold=0.5, name="iou")
