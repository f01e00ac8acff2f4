"""Small RT-1-like policy (state tokens instead of images) in Keras 3."""
