from .datasets import Market1501, ImageDataset
from .sampler import DistributedPKSampler
from .losses import TripletLoss
