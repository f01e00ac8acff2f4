from .model import WaveNet, mu_law_encode, mu_law_decode  # noqa: F401
