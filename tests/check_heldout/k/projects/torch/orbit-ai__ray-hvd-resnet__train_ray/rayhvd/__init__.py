from .models import resnet20, resnet56  # noqa: F401
