from demand import settings  # noqa: F401
