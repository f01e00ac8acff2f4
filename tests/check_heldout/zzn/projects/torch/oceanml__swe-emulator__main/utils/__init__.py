from .io import load_config, save_checkpoint, load_checkpoint  # noqa: F401
