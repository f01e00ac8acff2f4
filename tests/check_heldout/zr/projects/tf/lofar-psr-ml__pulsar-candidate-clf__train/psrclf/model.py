import keras
from keras import layers


def _branch_1d(name):
    inp = keras.Input((64,), name=name)
    x = layers.Reshape((64, 1))(inp)
    x = layers.Conv1D(16, 5, activation="relu", padding="same")(x)
    x = layers.GlobalMaxPooling1D()(x)
    return inp, x


def _branch_2d(name):
    inp = keras.Input((32, 64, 1), name=name)
    x = layers.Conv2D(16, 3, activation="relu", padding="same")(inp)
    x = layers.MaxPooling2D()(x)
    x = layers.Conv2D(32, 3, activation="relu", padding="same")(x)
    x = layers.GlobalAveragePooling2D()(x)
    return inp, x


def build_model():
    branches = [_branch_1d("profile"), _branch_1d("dm_curve"),
                _branch_2d("time_phase"), _branch_2d("freq_phase")]
    x = layers.Concatenate()([b[1] for b in branches])
    x = layers.Dense(64, activation="relu")(x)
    x = layers.Dropout(0.3)(x)
    out = layers.Dense(1, activation="sigmoid")(x)
    return keras.Model({b[0].name: b[0] for b in branches}, out, name="psr_multiview")
