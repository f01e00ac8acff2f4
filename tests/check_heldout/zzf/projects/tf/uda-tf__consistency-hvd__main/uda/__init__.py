"""Unsupervised Data Augmentation (UDA) for image classification, Keras 3 + Horovod."""
