import keras
from keras import layers
import horovod.tensorflow.keras as hvd


def build_model(input_shape, n_classes):
    inp = keras.Input(input_shape)
    x = inp
    for f, k in [(32, 15), (64, 9), (128, 5)]:
        x = layers.Conv1D(f, k, strides=2, padding="same")(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("relu")(x)
        x = layers.MaxPooling1D(2)(x)
    x = layers.GlobalAveragePooling1D()(x)
    x = layers.Dropout(0.3)(x)
    return keras.Model(inp, layers.Dense(n_classes, activation="softmax")(x))


def compile_model(model, lr):
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=lr))
    model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    return model
