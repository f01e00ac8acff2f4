from .env import setup_horovod
