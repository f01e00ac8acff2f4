import keras
from keras import layers


def bigru_classifier(vocab_size, embed_dim=128, units=64, num_classes=2):
    inputs = keras.Input(shape=(None,), dtype="int64")
    x = layers.Embedding(vocab_size, embed_dim, mask_zero=True)(inputs)
    x = layers.Bidirectional(layers.GRU(units, return_sequences=True))(x)
    x = layers.GlobalMaxPooling1D()(x)
    x = layers.Dropout(0.3)(x)
    outputs = layers.Dense(num_classes)(x)
    return keras.Model(inputs, outputs, name="bigru_sentiment")
