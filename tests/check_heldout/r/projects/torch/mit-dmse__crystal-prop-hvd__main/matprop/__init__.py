"""matprop: descriptor-based property models (Horovod training)."""
