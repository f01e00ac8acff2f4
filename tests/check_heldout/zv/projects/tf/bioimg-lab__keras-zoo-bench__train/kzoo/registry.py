import keras

_APPS = {
    "mobilenetv2": keras.applications.MobileNetV2,
    "efficientnetb0": keras.applications.EfficientNetB0,
    "resnet50": keras.applications.ResNet50,
    "densenet121": keras.applications.DenseNet121,
}


def list_backbones():
    return sorted(_APPS)


def get_backbone(name, image_size, n_classes, dropout=0.2):
    base = _APPS[name](include_top=False, weights=None, input_shape=(image_size, image_size, 3), pooling="avg")
    x = keras.layers.Dropout(dropout)(base.output)
    out = keras.layers.Dense(n_classes, activation="softmax")(x)
    return keras.Model(base.input, out, name=f"{name}_cls")
