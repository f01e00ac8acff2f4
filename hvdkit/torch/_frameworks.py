"""PyTorch and Horovod's torch module, imported first by hvdkit.torch: a missing one is one ImportError that
names the command installing it, before any other module of the package imports it bare."""
from hvdkit.common.frameworks import require

torch = require("torch", "hvdkit.torch")
hvd = require("horovod.torch", "hvdkit.torch")  # Horovod itself, for collectives hvdkit does not wrap
