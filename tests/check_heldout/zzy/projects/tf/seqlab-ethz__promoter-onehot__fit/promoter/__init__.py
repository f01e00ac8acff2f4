from .fasta import read_fasta, one_hot_encode  # noqa: F401
