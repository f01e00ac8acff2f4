from .jpeg_pairs import JpegPairs, build_val_set  # noqa: F401
