"""Linear-probe evaluation of self-supervised encoders (Keras 3 + Horovod)."""
