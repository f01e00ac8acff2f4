from .toy import ToyShapes, build_dataloader  # noqa: F401
