from .models import Discriminator, Generator, weights_init

__all__ = ["Discriminator", "Generator", "weights_init"]
