import keras


def mlp(input_dim, num_classes, hidden=(512, 256, 128), dropout=0.1):
    model = keras.Sequential([keras.Input((input_dim,))])
    for h in hidden:
        model.add(keras.layers.Dense(h, activation="gelu"))
        model.add(keras.layers.BatchNormalization())
        model.add(keras.layers.Dropout(dropout))
    model.add(keras.layers.Dense(num_classes))
    return model
