"""Radar precipitation nowcasting: 6 past frames -> 6 future frames."""
from . import hvd_utils, losses, model, pipeline  # noqa: F401
