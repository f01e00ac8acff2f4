import keras


def build_embedder(n_classes, embed_dim, input_shape=(32, 32, 3)):
    inputs = keras.Input(shape=input_shape)
    x = keras.layers.Conv2D(32, 3, activation="relu", padding="same")(inputs)
    x = keras.layers.MaxPooling2D()(x)
    x = keras.layers.Conv2D(64, 3, activation="relu", padding="same")(x)
    x = keras.layers.GlobalAveragePooling2D()(x)
    emb = keras.layers.Dense(embed_dim, name="embedding")(x)
    logits = keras.layers.Dense(n_classes, name="logits")(keras.layers.Activation("relu")(emb))
    return keras.Model(inputs, logits, name="embedder")
