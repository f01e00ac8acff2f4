from .models import DualEncoder  # noqa: F401
