from .network import SearchNet
from .genotype import genotype_from_alphas
from .dist import broadcast_model, allreduce_grads, global_mean
