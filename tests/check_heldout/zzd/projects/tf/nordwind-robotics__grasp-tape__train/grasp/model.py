import tensorflow as tf
from tensorflow.keras import layers


class GraspNet(tf.keras.Model):
    def __init__(self, width=32):
        super().__init__()
        self.convs = [layers.Conv2D(width * m, 3, strides=2, padding="same", activation="relu")
                      for m in (1, 2, 4, 4)]
        self.pool = layers.GlobalAveragePooling2D()
        self.fc = layers.Dense(64, activation="relu")
        self.out = layers.Dense(1)

    def call(self, x, training=False):
        for c in self.convs:
            x = c(x)
        return self.out(self.fc(self.pool(x)))
