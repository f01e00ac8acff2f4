"""Small few-shot toolkit: episodic data, Conv-4 backbone, Horovod glue."""
__version__ = "0.3.1"
