import keras


def build_policy(obs_dim=4, hidden=(256, 256)):
    inp = keras.Input((obs_dim,))
    x = inp
    for h in hidden:
        x = keras.layers.Dense(h, activation="swish")(x)
    out = keras.layers.Dense(1, activation="tanh")(x)
    return keras.Model(inp, out, name="steer_policy")
