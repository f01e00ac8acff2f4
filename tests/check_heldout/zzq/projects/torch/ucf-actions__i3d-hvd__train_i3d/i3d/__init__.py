from .network import InceptionI3dTiny
from .datasets import UCF101Clips
from .samplers import ClipSampler
