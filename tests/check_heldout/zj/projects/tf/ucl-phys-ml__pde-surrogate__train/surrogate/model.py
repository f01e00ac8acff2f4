import keras


def make_mlp(in_dim, out_dim, width, depth, activation):
    inp = keras.Input((in_dim,))
    x = inp
    for _ in range(depth):
        x = keras.layers.Dense(width, activation=activation)(x)
    out = keras.layers.Dense(out_dim)(x)
    return keras.Model(inp, out, name="surrogate_mlp")
