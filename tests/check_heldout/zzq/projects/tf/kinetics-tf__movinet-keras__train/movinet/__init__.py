"""MoViNet-style mobile video network, Keras 3 + Horovod training utilities."""
