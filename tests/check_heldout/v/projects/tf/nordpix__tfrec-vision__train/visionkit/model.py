import keras


def conv_block(filters):
    return keras.Sequential([
        keras.layers.Conv2D(filters, 3, padding="same", use_bias=False),
        keras.layers.BatchNormalization(),
        keras.layers.ReLU(),
        keras.layers.MaxPooling2D(),
    ])


class SmallResNetish(keras.Model):
    def __init__(self, num_classes, widths=(32, 64, 128), **kw):
        super().__init__(**kw)
        self.num_classes, self.widths = num_classes, tuple(widths)
        self.blocks = [conv_block(w) for w in widths]
        self.pool = keras.layers.GlobalAveragePooling2D()
        self.dropout = keras.layers.Dropout(0.2)
        self.classifier = keras.layers.Dense(num_classes)

    def get_config(self):
        return {**super().get_config(), "num_classes": self.num_classes, "widths": self.widths}

    def call(self, x, training=False):
        for block in self.blocks:
            x = block(x, training=training)
        return self.classifier(self.dropout(self.pool(x), training=training))
