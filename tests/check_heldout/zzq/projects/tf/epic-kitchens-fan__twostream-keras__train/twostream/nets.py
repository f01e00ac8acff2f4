import keras
from keras import layers


def _rgb_stream(frames, size):
    inp = keras.Input((frames, size, size, 3), name="rgb")
    x = layers.TimeDistributed(layers.Conv2D(16, 3, strides=2, activation="relu"))(inp)
    x = layers.TimeDistributed(layers.GlobalAveragePooling2D())(x)
    return inp, layers.GlobalAveragePooling1D()(x)


def _flow_stream(size, flow_len):
    inp = keras.Input((size, size, 2 * flow_len), name="flow")
    x = layers.Conv2D(16, 3, strides=2, activation="relu")(inp)
    x = layers.Conv2D(32, 3, strides=2, activation="relu")(x)
    return inp, layers.GlobalAveragePooling2D()(x)


def two_stream_model(num_classes, frames=4, size=32, flow_len=5, fusion="late"):
    rgb_in, r = _rgb_stream(frames, size)
    flow_in, f = _flow_stream(size, flow_len)
    if fusion == "late":
        logits = layers.Add()([layers.Dense(num_classes)(r), layers.Dense(num_classes)(f)])
    else:
        logits = layers.Dense(num_classes)(layers.Concatenate()([r, f]))
    out = layers.Activation("linear", dtype="float32")(logits)
    return keras.Model({"rgb": rgb_in, "flow": flow_in}, out, name=f"two_stream_{fusion}")
