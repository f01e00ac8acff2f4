"""WRF surface-field emulator (regional, 3 km) - Keras 3 / TF2 + Horovod."""
