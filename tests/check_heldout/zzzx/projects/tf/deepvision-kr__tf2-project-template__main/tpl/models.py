import tensorflow as tf


class BaseModel(tf.keras.Model):
    def __init__(self, config):
        super().__init__()
        self.config = config


class ConvNet(BaseModel):
    def __init__(self, config):
        super().__init__(config)
        self.c1 = tf.keras.layers.Conv2D(32, 3, activation="relu")
        self.c2 = tf.keras.layers.Conv2D(64, 3, activation="relu")
        self.pool = tf.keras.layers.MaxPooling2D()
        self.drop = tf.keras.layers.Dropout(0.25)
        self.flat = tf.keras.layers.Flatten()
        self.d1 = tf.keras.layers.Dense(128, activation="relu")
        self.out = tf.keras.layers.Dense(10)

    def call(self, x, training=False):
        x = self.pool(self.c2(self.c1(x)))
        x = self.drop(x, training=training)
        return self.out(self.d1(self.flat(x)))
