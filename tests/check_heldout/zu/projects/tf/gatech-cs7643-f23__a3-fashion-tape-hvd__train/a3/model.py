import keras
from keras import layers


class SmallCNN(keras.Model):
    def __init__(self, num_classes=10):
        super().__init__()
        self.c1 = layers.Conv2D(32, 3, activation="relu", padding="same")
        self.c2 = layers.Conv2D(64, 3, activation="relu", padding="same")
        self.pool = layers.MaxPooling2D()
        self.flat = layers.Flatten()
        self.drop = layers.Dropout(0.3)
        self.fc = layers.Dense(128, activation="relu")
        self.out = layers.Dense(num_classes)

    def call(self, x, training=False):
        x = self.pool(self.c1(x))
        x = self.pool(self.c2(x))
        x = self.drop(self.flat(x), training=training)
        return self.out(self.fc(x))
