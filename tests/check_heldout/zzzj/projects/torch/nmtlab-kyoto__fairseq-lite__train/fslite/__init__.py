"""fairseq-lite: a small transformer NMT trainer that runs under horovodrun."""
__version__ = "0.3.1"
