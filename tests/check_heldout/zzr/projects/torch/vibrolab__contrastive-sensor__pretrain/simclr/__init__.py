from .models import ContrastiveModel, Encoder  # noqa: F401
