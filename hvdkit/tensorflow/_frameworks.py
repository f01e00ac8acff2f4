"""TensorFlow (without its C++ start-up notices) and Horovod's TF module, imported first by hvdkit.tensorflow:
a missing one is one ImportError that names the command installing it, before any other module of the
package imports it bare."""
from hvdkit.common.frameworks import import_quietly, require

tf = import_quietly("tensorflow", "hvdkit.tensorflow")
hvd = require("horovod.tensorflow", "hvdkit.tensorflow")  # Horovod itself, for collectives hvdkit does not wrap
