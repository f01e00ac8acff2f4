import keras
from keras import layers


class MultiHeadNet(keras.Model):
    def __init__(self, n_tasks, n_out):
        super().__init__()
        self.body = keras.Sequential([
            layers.Conv2D(32, 3, activation="relu", padding="same"), layers.MaxPooling2D(),
            layers.Conv2D(64, 3, activation="relu", padding="same"), layers.MaxPooling2D(),
            layers.Flatten(), layers.Dense(256, activation="relu")])
        self.heads = [layers.Dense(n_out, name=f"head{t}") for t in range(n_tasks)]

    def call(self, x, task=0, training=False):
        h = self.body(x, training=training)
        return self.heads[task](h)

    def build_all(self, input_shape):
        x = keras.ops.zeros((1,) + tuple(input_shape))
        for t in range(len(self.heads)):
            self(x, task=t)
