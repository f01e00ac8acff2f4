"""Framework-free pieces shared by hvdkit.torch and hvdkit.tensorflow (no torch/tensorflow imports here)."""
