"""MLP / ResNet baselines for tabular data (Gorishniy et al. 2021 style), horovod-ready."""
