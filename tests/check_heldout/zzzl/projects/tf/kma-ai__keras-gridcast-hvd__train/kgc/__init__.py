"""keras-gridcast: Keras 3 (TF backend) global 2.5 deg emulator with Horovod data parallelism."""
