from .config import VaRConfig
