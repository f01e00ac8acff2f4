import keras
from keras import layers

from . import VOCAB_SIZE


class ResidualDilatedBlock(layers.Layer):
    def __init__(self, channels, dilation, **kw):
        super().__init__(**kw)
        self.bn1 = layers.BatchNormalization()
        self.conv1 = layers.Conv1D(channels, 9, dilation_rate=dilation, padding="same")
        self.bn2 = layers.BatchNormalization()
        self.conv2 = layers.Conv1D(channels, 1, padding="same")

    def call(self, x, training=False):
        h = self.conv1(keras.activations.relu(self.bn1(x, training=training)))
        h = self.conv2(keras.activations.relu(self.bn2(h, training=training)))
        return x + h


def protcnn(num_families, channels=256, dilations=(1, 2, 4, 8, 1, 2, 4, 8)):
    seq = keras.Input((None,), dtype="int64")
    x = layers.Embedding(VOCAB_SIZE, channels, mask_zero=False)(seq)
    for d in dilations:
        x = ResidualDilatedBlock(channels, d)(x)
    x = layers.GlobalMaxPooling1D()(x)
    x = layers.Dropout(0.3)(x)
    return keras.Model(seq, layers.Dense(num_families)(x), name="protcnn")
