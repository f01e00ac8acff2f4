from .io import save_state, load_state  # noqa: F401
