import keras


class MorphNet(keras.Model):
    def __init__(self, n_classes, **kwargs):
        super().__init__(**kwargs)
        self.blocks = [
            keras.layers.Conv2D(32, 3, activation="relu", padding="same"),
            keras.layers.MaxPool2D(),
            keras.layers.Conv2D(64, 3, activation="relu", padding="same"),
            keras.layers.MaxPool2D(),
            keras.layers.Conv2D(128, 3, activation="relu", padding="same"),
            keras.layers.GlobalAveragePooling2D(),
        ]
        self.drop = keras.layers.Dropout(0.3)
        self.out = keras.layers.Dense(n_classes)

    def call(self, x, training=False):
        for b in self.blocks:
            x = b(x)
        return self.out(self.drop(x, training=training))


def build_model(cfg):
    m = MorphNet(cfg.n_classes, name="morphnet")
    m.build((None, cfg.image_size, cfg.image_size, 1))
    return m
