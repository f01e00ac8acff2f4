import keras
from keras import layers


def dilated_resnet1d(num_classes, vocab=22, embed=64, filters=128, blocks=4, max_len=512, dropout=0.2):
    inp = keras.Input((max_len,), dtype="int32")
    x = layers.Embedding(vocab, embed, mask_zero=False)(inp)
    x = layers.Conv1D(filters, 1)(x)
    for i in range(blocks):
        h = layers.BatchNormalization()(x)
        h = layers.Activation("relu")(h)
        h = layers.Conv1D(filters, 9, padding="same", dilation_rate=2 ** (i % 3))(h)
        h = layers.BatchNormalization()(h)
        h = layers.Activation("relu")(h)
        h = layers.Conv1D(filters, 1)(h)
        x = layers.Add()([x, h])
    x = layers.GlobalMaxPooling1D()(x)
    x = layers.Dropout(dropout)(x)
    out = layers.Dense(num_classes, activation="softmax", dtype="float32")(x)
    return keras.Model(inp, out, name="protcnn")
