from .encode import AMINO, encode_fasta_table  # noqa: F401
