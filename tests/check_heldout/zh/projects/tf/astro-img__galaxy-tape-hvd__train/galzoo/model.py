import tensorflow as tf


class GalaxyNet(tf.keras.Model):
    def __init__(self, n_out=37, width=32):
        super().__init__()
        self.blocks = []
        for i in range(4):
            self.blocks += [tf.keras.layers.Conv2D(width * 2 ** i, 3, padding='same', activation='relu'),
                            tf.keras.layers.BatchNormalization(),
                            tf.keras.layers.MaxPool2D()]
        self.pool = tf.keras.layers.GlobalAveragePooling2D()
        self.drop = tf.keras.layers.Dropout(0.3)
        self.fc = tf.keras.layers.Dense(n_out, activation='sigmoid')

    def call(self, x, training=False):
        for layer in self.blocks:
            x = layer(x, training=training) if isinstance(layer, tf.keras.layers.BatchNormalization) else layer(x)
        return self.fc(self.drop(self.pool(x), training=training))
