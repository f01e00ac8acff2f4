"""SchNet-lite: continuous-filter convolutions for molecules, TF2 + horovod."""
