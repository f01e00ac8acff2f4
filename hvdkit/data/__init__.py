"""Data sets for the examples and `hvdkit data`: IDX/npz readers, named data sets, the Keras MNIST stand-in.

Framework-free (numpy only); the framework loaders (hvdkit.torch / hvdkit.tensorflow) read through these.
"""
