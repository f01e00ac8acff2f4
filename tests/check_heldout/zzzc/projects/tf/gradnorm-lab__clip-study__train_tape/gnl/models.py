import keras


def convnet(width=32, norm=True):
    layers = [keras.Input((28, 28, 1))]
    for mult in (1, 2):
        layers.append(keras.layers.Conv2D(width * mult, 3, padding="same", use_bias=not norm))
        if norm:
            layers.append(keras.layers.BatchNormalization())
        layers += [keras.layers.ReLU(), keras.layers.MaxPooling2D()]
    layers += [keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(2)]
    return keras.Sequential(layers)
