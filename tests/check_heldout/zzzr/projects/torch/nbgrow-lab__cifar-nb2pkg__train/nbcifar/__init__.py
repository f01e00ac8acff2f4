# grown out of notebooks/01_cifar_baseline.ipynb
__version__ = "0.2.0"
