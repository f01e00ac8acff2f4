from .model import SearchNetwork
from .architect import Architect
from .genotype import derive_genotype, PRIMITIVES
