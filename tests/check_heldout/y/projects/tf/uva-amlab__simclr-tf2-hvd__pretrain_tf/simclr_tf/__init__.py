"""TF2 / Keras 3 port of the lab's SimCLR code."""
