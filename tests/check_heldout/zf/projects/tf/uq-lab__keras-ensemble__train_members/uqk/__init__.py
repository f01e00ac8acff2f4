"""Uncertainty-quantification lab: deep-ensemble utilities for Keras 3.

Modules: members (architectures), data (per-worker CIFAR-10 slices), cbs (fit callbacks),
predict (ensemble averaging and NLL / accuracy / ECE scores).
"""
__version__ = "0.2.0"
