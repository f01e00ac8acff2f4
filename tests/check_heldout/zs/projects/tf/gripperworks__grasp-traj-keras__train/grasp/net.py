import keras
from keras import layers


def temporal_conv_policy(window, obs_dim, act_dim, width=128):
    inp = keras.Input((window, obs_dim), name="obs_window")
    x = layers.Conv1D(width, 3, padding="causal", activation="relu")(inp)
    x = layers.Conv1D(width, 3, padding="causal", dilation_rate=2, activation="relu")(x)
    x = layers.Conv1D(width, 3, padding="causal", dilation_rate=4, activation="relu")(x)
    x = layers.GlobalAveragePooling1D()(x)
    x = layers.Dense(width, activation="relu")(x)
    gripper = layers.Dense(1, activation="sigmoid", name="gripper")(x)
    motion = layers.Dense(act_dim - 1, activation="tanh", name="motion")(x)
    return keras.Model(inp, layers.Concatenate(name="action")([motion, gripper]))
