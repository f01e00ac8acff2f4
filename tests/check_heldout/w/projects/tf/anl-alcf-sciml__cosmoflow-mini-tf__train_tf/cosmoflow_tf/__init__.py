"""TensorFlow/Keras port of CosmoFlow-mini (same data layout as the PyTorch version)."""
