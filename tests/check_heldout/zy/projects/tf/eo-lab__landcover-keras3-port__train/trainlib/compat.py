"""Keras 2 (tf.keras, TF <= 2.15) vs Keras 3 shims. Keras 2 path still used on the old cluster."""
import keras
from packaging.version import Version

KERAS3 = Version(keras.__version__) >= Version("3.0")

if KERAS3:
    from keras.optimizers import SGD
else:  # TF 2.11-2.15: the new optimizers are slow with horovod, use the legacy ones
    from keras.optimizers.legacy import SGD  # noqa: F401


def weights_file(path):
    return path if (not KERAS3 or path.endswith(".weights.h5")) else path.replace(".h5", ".weights.h5")
