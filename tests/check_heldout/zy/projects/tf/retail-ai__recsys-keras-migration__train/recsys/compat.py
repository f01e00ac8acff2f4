"""Keras 2 / Keras 3 differences we hit during the migration (ticket REC-412)."""
import keras

KERAS_MAJOR = int(keras.__version__.split(".")[0])


def checkpoint_path(path):
    # Keras 3 only accepts .keras / .weights.h5 endings
    if KERAS_MAJOR >= 3 and path.endswith(".h5") and not path.endswith(".weights.h5"):
        return path[:-3] + ".weights.h5"
    return path
