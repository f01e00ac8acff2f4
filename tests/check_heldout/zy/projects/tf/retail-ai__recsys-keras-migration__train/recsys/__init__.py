from .compat import KERAS_MAJOR
