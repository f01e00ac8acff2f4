"""FT-Transformer style models for tabular data, trained data-parallel with Horovod."""
