from .model import build_ft_transformer  # noqa
