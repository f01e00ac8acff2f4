"""kmerseq: k-mer CNNs for regulatory DNA (helixlab)."""
__version__ = "0.3.1"
