import keras
from keras import layers


def build_classifier(num_classes, image_size, weights_path):
    base = keras.applications.EfficientNetB0(include_top=False, weights=None,
                                             input_shape=(image_size, image_size, 3))
    base.load_weights(weights_path)
    base.trainable = False
    inputs = keras.Input((image_size, image_size, 3))
    x = base(inputs, training=False)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.3)(x)
    outputs = layers.Dense(num_classes, activation="softmax")(x)
    return keras.Model(inputs, outputs, name="effnet_ft")


def unfreeze_top(model, first_layer):
    base = model.layers[1]
    base.trainable = True
    frozen = True
    for layer in base.layers:
        if layer.name == first_layer:
            frozen = False
        layer.trainable = not frozen and not isinstance(layer, layers.BatchNormalization)
