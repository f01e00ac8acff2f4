from .compat import to_scalar, no_grad_ctx
from .dist import init_distributed, metric_average, is_root
