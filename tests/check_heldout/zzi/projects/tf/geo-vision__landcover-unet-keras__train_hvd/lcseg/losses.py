import keras
from keras import ops


class DiceCrossEntropy(keras.losses.Loss):
    def __init__(self, n_classes, dice_weight=0.5, name="dice_ce"):
        super().__init__(name=name)
        self.n_classes = n_classes
        self.dice_weight = dice_weight

    def call(self, y_true, y_pred):
        ce = keras.losses.sparse_categorical_crossentropy(y_true, y_pred)
        onehot = ops.one_hot(ops.cast(y_true, "int32"), self.n_classes)
        inter = ops.sum(onehot * y_pred, axis=(1, 2))
        denom = ops.sum(onehot + y_pred, axis=(1, 2))
        dice = 1.0 - ops.mean((2.0 * inter + 1.0) / (denom + 1.0), axis=-1)
        return ops.mean(ce, axis=(1, 2)) + self.dice_weight * dice
