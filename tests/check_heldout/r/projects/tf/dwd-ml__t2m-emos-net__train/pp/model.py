from tensorflow import keras


def build_emos_net(n_features, n_stations, emb_dim=2, hidden=64):
    x_in = keras.Input((n_features,), name="features")
    s_in = keras.Input((), dtype="int32", name="station")
    emb = keras.layers.Embedding(n_stations, emb_dim)(s_in)
    h = keras.layers.Concatenate()([x_in, emb])
    h = keras.layers.Dense(hidden, activation="relu")(h)
    mu = keras.layers.Dense(1)(h)
    sigma = keras.layers.Dense(1, activation="softplus")(h)
    return keras.Model([x_in, s_in], [keras.ops.squeeze(mu, -1), keras.ops.squeeze(sigma, -1) + 1e-3])
