import os

import tensorflow as tf


def export_tflite(model, out_dir, quantize=True):
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    if quantize:
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "student.tflite")
    with open(path, "wb") as f:
        f.write(converter.convert())
    return path
