import keras
from keras import layers


def build_im2seq(vocab_size, height=48, width=320, d=256):
    image = keras.Input((height, width, 1), name="image")
    dec_in = keras.Input((None,), dtype="int32", name="decoder_tokens")

    x = image
    for f in (64, 128, 256):
        x = layers.Conv2D(f, 3, padding="same", activation="relu")(x)
        x = layers.MaxPooling2D(2)(x)
    x = layers.Reshape((-1, 256))(x)                    # flattened feature grid
    memory = layers.Dense(d)(x)

    e = layers.Embedding(vocab_size, d, mask_zero=False)(dec_in)
    h = layers.GRU(d, return_sequences=True)(e)
    ctx = layers.Attention(use_scale=True)([h, memory])  # Luong attention over the grid
    h = layers.Concatenate()([h, ctx])
    h = layers.Dense(d, activation="tanh")(h)
    logits = layers.Dense(vocab_size)(h)
    return keras.Model([image, dec_in], logits, name="invoice_im2seq")
