"""Neural emulator of monthly surface temperature fields, trained with elastic Horovod."""
