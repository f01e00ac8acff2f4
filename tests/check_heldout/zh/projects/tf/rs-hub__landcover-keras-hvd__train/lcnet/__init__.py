from .config import load_config
from .env import setup_env
