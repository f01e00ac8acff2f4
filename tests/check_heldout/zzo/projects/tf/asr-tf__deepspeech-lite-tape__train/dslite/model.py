import keras
from keras import layers


class DeepSpeechLite(keras.Model):
    def __init__(self, vocab_size, rnn_units=384, **kwargs):
        super().__init__(**kwargs)
        self.encoder = keras.Sequential([
            layers.Conv1D(256, 11, strides=2, padding="same", activation="relu"),
            layers.BatchNormalization(),
            layers.Bidirectional(layers.GRU(rnn_units, return_sequences=True)),
            layers.Bidirectional(layers.GRU(rnn_units, return_sequences=True)),
        ], name="encoder")
        self.head = keras.Sequential([layers.Dense(rnn_units, activation="relu"), layers.Dropout(0.2),
                                      layers.Dense(vocab_size)], name="head")

    def call(self, x, training=False):
        return self.head(self.encoder(x, training=training), training=training)
