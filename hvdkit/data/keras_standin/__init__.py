"""Directory put on PYTHONPATH to let unmodified Keras scripts read hvdkit's MNIST stand-in: see sitecustomize.py."""
import os

DIR = os.path.dirname(os.path.abspath(__file__))
