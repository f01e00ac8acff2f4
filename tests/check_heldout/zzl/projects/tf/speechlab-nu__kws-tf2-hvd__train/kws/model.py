import tensorflow as tf


class DSCNN(tf.keras.Model):
    """Depthwise-separable CNN keyword spotter."""

    def __init__(self, num_classes=12, width=64):
        super().__init__()
        self.stem = tf.keras.layers.Conv2D(width, (10, 4), strides=(2, 2), padding="same")
        self.blocks = [tf.keras.layers.SeparableConv2D(width, 3, padding="same",
                                                       activation="relu")
                       for _ in range(4)]
        self.pool = tf.keras.layers.GlobalAveragePooling2D()
        self.head = tf.keras.layers.Dense(num_classes)

    def call(self, x, training=False):
        x = tf.nn.relu(self.stem(x))
        for b in self.blocks:
            x = b(x)
        return self.head(self.pool(x))
