import keras
from keras import layers


def build_crnn(num_classes, img_h=32, img_w=256):
    inp = keras.Input((img_h, img_w, 1), name="image")
    x = inp
    for filters, pool in [(64, (2, 2)), (128, (2, 2)), (256, (2, 1)), (256, (2, 1))]:
        x = layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
        x = layers.MaxPooling2D(pool)(x)
    x = layers.Reshape((img_w // 4, -1))(layers.Permute((2, 1, 3))(x))
    x = layers.Bidirectional(layers.LSTM(128, return_sequences=True, dropout=0.1))(x)
    x = layers.Bidirectional(layers.LSTM(128, return_sequences=True, dropout=0.1))(x)
    out = layers.Dense(num_classes + 1, name="logits")(x)
    return keras.Model(inp, out, name="crnn")
