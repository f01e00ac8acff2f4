import keras
from keras import layers


def teacher_net(num_classes=100):
    return keras.applications.ResNet50V2(input_shape=(32, 32, 3), weights=None, classes=num_classes,
                                         classifier_activation=None)


def edge_student(num_classes=100, alpha=0.35):
    inp = keras.Input((32, 32, 3))
    x = layers.Conv2D(int(64 * alpha), 3, padding="same", activation="relu6")(inp)
    for filters, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
        x = layers.DepthwiseConv2D(3, strides=stride, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU(6.0)(x)
        x = layers.Conv2D(int(filters * alpha), 1, use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU(6.0)(x)
    x = layers.GlobalAveragePooling2D()(x)
    return keras.Model(inp, layers.Dense(num_classes)(x), name="edge_student")
