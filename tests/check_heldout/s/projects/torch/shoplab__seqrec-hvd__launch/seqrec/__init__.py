"""Sequential recommendation (SASRec) trained with Horovod."""
