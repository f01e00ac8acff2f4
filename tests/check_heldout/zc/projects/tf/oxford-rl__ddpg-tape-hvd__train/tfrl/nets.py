import keras
from keras import layers


def actor(obs_dim, act_dim, act_limit, hidden=256):
    inp = keras.Input((obs_dim,))
    h = layers.Dense(hidden, activation="relu")(inp)
    h = layers.Dense(hidden, activation="relu")(h)
    out = layers.Dense(act_dim, activation="tanh")(h) * act_limit
    return keras.Model(inp, out)


def critic(obs_dim, act_dim, hidden=256):
    o, a = keras.Input((obs_dim,)), keras.Input((act_dim,))
    h = layers.Concatenate()([o, a])
    h = layers.Dense(hidden, activation="relu")(h)
    h = layers.Dense(hidden, activation="relu")(h)
    return keras.Model([o, a], layers.Dense(1)(h))


def soft_update(target, source, tau):
    for t, s in zip(target.weights, source.weights):
        t.assign((1 - tau) * t + tau * s)
