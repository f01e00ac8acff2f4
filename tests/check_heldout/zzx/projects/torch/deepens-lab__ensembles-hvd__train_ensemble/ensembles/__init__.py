"""Deep ensembles trained jointly in a single run."""
from .models import DeepEnsemble
from .dist import DistInfo, init_horovod

__all__ = ["DeepEnsemble", "DistInfo", "init_horovod"]
