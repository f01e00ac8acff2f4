"""gcn-hvd: semi-supervised node classification (Kipf & Welling) with Horovod."""
__version__ = "0.3.1"
