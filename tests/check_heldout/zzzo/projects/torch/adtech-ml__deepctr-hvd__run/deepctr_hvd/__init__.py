from .options import TrainOptions  # noqa
