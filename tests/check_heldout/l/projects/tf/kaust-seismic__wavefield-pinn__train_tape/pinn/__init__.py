from .data import load_observations, make_collocation, observation_dataset
from .network import WavefieldNet
from .trainer import Trainer
