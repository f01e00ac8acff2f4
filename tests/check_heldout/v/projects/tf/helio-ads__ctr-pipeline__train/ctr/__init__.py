"""helio-ads CTR training pipeline (Keras 3 + Horovod)."""
