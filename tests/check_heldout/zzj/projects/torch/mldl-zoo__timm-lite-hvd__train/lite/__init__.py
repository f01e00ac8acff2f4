from .models import create_model, list_models
from .optim_factory import create_optimizer, create_scheduler
from .utils import set_seed, AverageMeter, reduce_tensor
from .saver import CheckpointSaver
