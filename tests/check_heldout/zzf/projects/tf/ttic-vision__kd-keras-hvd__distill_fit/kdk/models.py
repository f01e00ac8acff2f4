import keras
from keras import layers


def student_cnn(num_classes=10, width=32):
    inp = keras.Input((32, 32, 3))
    x = layers.Rescaling(1.0 / 255)(inp)
    for mult in (1, 2, 4):
        x = layers.Conv2D(width * mult, 3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
        x = layers.MaxPooling2D()(x)
    x = layers.GlobalAveragePooling2D()(x)
    return keras.Model(inp, layers.Dense(num_classes)(x), name="student")


def load_teacher(path):
    teacher = keras.models.load_model(path, compile=False)
    teacher.trainable = False
    return teacher
