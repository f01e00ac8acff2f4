"""segkit: shared training code of the CT segmentation projects."""
__version__ = "0.4.2"
