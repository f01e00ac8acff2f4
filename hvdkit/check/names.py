"""The one vocabulary of Horovod's and hvdkit's names that the static rules look for.

Keyword lists are Horovod 0.28.1's real signatures (horovod/torch/optimizer.py, horovod/tensorflow/
__init__.py, horovod/tensorflow/keras/__init__.py, horovod/keras/__init__.py, their functions.py and
callbacks.py), so a misspelled keyword is the TypeError Horovod raises.
"""
import re

# Horovod's and hvdkit's framework modules: the second name says whose API it is.
API_MODULES = (
    ("horovod.tensorflow.keras", "horovod"), ("horovod.tensorflow", "horovod"), ("horovod.torch", "horovod"),
    ("horovod.keras", "horovod"), ("hvdkit.torch.hvd", "horovod"), ("hvdkit.tensorflow.hvd", "horovod"),
    ("hvdkit.torch", "hvdkit"), ("hvdkit.tensorflow", "hvdkit"),
)
API_PREFIXES = ("horovod", "hvdkit.torch", "hvdkit.tensorflow")

# --- step 1: everything that needs init() first ------------------------------------------------
NEEDS_INIT = ("rank", "size", "local_rank", "local_size", "cross_rank", "cross_size", "allreduce", "broadcast",
              "broadcast_parameters", "broadcast_variables", "broadcast_optimizer_state", "allgather",
              "broadcast_global_variables", "scale_lr", "shard")
RANK_QUERIES = ("rank", "cross_rank")
LOCAL_RANK_QUERIES = ("local_rank",)
SIZE_QUERIES = ("size", "local_size", "cross_size")

# --- step 2: pinning ---------------------------------------------------------------------------
GPU_CALLS = ("set_device", "set_visible_devices", "cuda")
THREAD_CALLS = ("set_num_threads", "set_intra_op_parallelism_threads", "set_inter_op_parallelism_threads")
GPU_PLACEMENT = ("cuda", "to")  # model.cuda(), x.to('cuda')
# Environment variables the launchers set (horovodrun/Gloo, Open MPI, MVAPICH, Intel MPI/MPICH, Slurm, torchrun, PMI):
# a value read from one is the local rank (a GPU index on the node) or the global rank (not one).
LOCAL_RANK_ENV = ("HOROVOD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                  "SLURM_LOCALID", "PMI_LOCAL_RANK")
# torchrun's local rank: Horovod's launchers (horovodrun's gloo and MPI runs, mpirun) never set it (Horovod
# 0.28.1's runner sets HOROVOD_LOCAL_RANK), so under Horovod every rank reads its default.
TORCHRUN_LOCAL_RANK_ENV = ("LOCAL_RANK",)
# torchrun's own variables, none of which Horovod's launchers set: on a Horovod run each reads its default.
TORCHRUN_ONLY_ENV = ("LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "TORCHELASTIC_RUN_ID")
RANK_ENV = ("HOROVOD_RANK", "OMPI_COMM_WORLD_RANK", "MV2_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "RANK")
# Words of GPU use in names, attributes and strings (torch.cuda, .cuda(), "cuda:0", cudnn, use_gpu, NCCL).
GPU_WORDS = re.compile(r"cuda|cudnn|gpu|nccl", re.I)

# --- step 3: sharding --------------------------------------------------------------------------
SAMPLERS = ("DistributedSampler", "ElasticSampler")
# Horovod's and hvdkit's own partitions: they read rank and size themselves (hvd.elastic.ElasticSampler(ds),
# hvdkit's shard(ds, batch_size)).
SELF_PARTITIONING = ("shard", "ElasticSampler")
# keyword pairs a loader takes to read its rank's part: (count keyword, index keyword)
PARTITION_KEYWORDS = (("num_replicas", "rank"), ("global_size", "global_rank"), ("num_shards", "shard_id"),
                      ("num_shards", "index"), ("world_size", "rank"), ("num_workers", "worker_index"),
                      ("num_parts", "part"), ("size", "rank"))
STEP_KWARGS = ("steps_per_epoch", "epochs", "steps", "max_steps", "num_steps")
# Names of evaluation data: step 3 reads them only where the data flow does not say (a documented fallback).
EVAL_NAMES = re.compile(r"val|test|eval|(^|_|\b)dev(_|\b)", re.I)
SEEDERS = ("manual_seed", "set_seed", "set_random_seed", "seed")
DATA_SOURCES = re.compile(r"^(DataLoader|\w*Dataset\w*|from_tensor_slices|load_data|flow\w*|from_generator|"
                          r"image_dataset_from_directory|load|read_\w+|fromfile|\w*Loader)$")
RANDOM_MAKERS = re.compile(r"^(uniform|normal|randn|rand|randint|random_normal|random_uniform|truncated_normal)$")
RANDOM_PICKS = ("choice", "permutation", "randint", "sample", "randperm", "train_test_split", "random_split")
# Random generator objects of numpy and the standard library, made with a seed; their draws (a pick from a
# population, as opposed to a number in a range); and the draws given how many to pick, by the position of that
# count (numpy's choice(a, size), Generator.integers and RandomState.randint (low, high, size)).
GENERATOR_CLASSES = ("RandomState", "default_rng", "Generator", "Random")
GENERATOR_DRAWS = ("choice", "permutation", "sample", "randint", "integers")
POPULATION_PICKS = ("choice", "permutation", "sample")
COUNTED_DRAWS = {"choice": 1, "integers": 2, "randint": 2}

# --- step 4: learning rate ---------------------------------------------------------------------
OPTIMIZER_CLASS = re.compile(r"^(torch\.optim|keras\.optimizers|tensorflow\.keras\.optimizers|tensorflow\.optimizers|"
                             r"keras\.optimizers\.legacy)(\.experimental|\.legacy)?\.[A-Z]\w*$|"
                             r"^(keras|tensorflow\.keras)\.optimizers\.(get|deserialize)$|"  # made from a config
                             r"^tensorflow\.(compat\.v1\.)?train\.\w*Optimizer$")
# Optimizer classes of other libraries, by the module path their import resolves to (Sonnet, TF Addons, apex,
# torch-optimizer, timm, transformers, pytorch-pretrained-bert). Other optimizers are found by data flow: what
# the training steps with, traced back to the call that made it with a learning rate (rules/step4_lr.py).
LIBRARY_OPTIMIZER = re.compile(r"^(sonnet\.optimizers|tensorflow_addons\.optimizers|apex\.optimizers|torch_optimizer|"
                               r"timm\.optim|pytorch_pretrained_bert\.optimization)\.[A-Z]\w*$|"
                               r"^transformers(\.optimization)?\.(AdamW|Adafactor)$")
# Libraries whose optimizers take the parameters first and the LR second (PyTorch's convention).
TORCH_LIBRARIES = ("torch", "apex", "torch_optimizer", "timm", "transformers", "pytorch_pretrained_bert")
LR_KEYWORDS = ("lr", "learning_rate")
# Schedulers that set the LR themselves from their own argument (the optimizer's lr is overwritten).
LR_OVERWRITING_SCHEDULERS = {"OneCycleLR": ("max_lr",), "CyclicLR": ("base_lr", "max_lr")}

# --- step 5: gradient averaging ----------------------------------------------------------------
WRAPPERS = ("DistributedOptimizer", "distributed_optimizer", "DistributedGradientTape", "allreduce_gradients",
            "PartialDistributedGradientTape", "PartialDistributedOptimizer",
            "train_step", "TrainStep")  # hvdkit.tensorflow's whole step (API names only: not a user's train_step)
SUM_OPS = re.compile(r"^(Sum|sum)$")
# Calls that run a function they are handed as the training on each worker (Facts.training_not_read): Horovod's
# own launchers (in-process, Spark, Ray), its elastic runner, and torch's and Python's process spawners.
LAUNCHERS = ("horovod.run", "horovod.runner.run", "horovod.spark.run", "horovod.spark.run_elastic",
             "horovod.ray.RayExecutor.run", "horovod.torch.elastic.run", "horovod.tensorflow.elastic.run",
             "horovod.tensorflow.keras.elastic.run", "torch.multiprocessing.spawn", "multiprocessing.Process",
             "torch.multiprocessing.Process")
OPTIMIZER_STEPS = ("step", "apply_gradients", "minimize", "train_on_batch", "fit", "fit_generator")
SIGNATURES = {  # (module, name): the keywords Horovod 0.28.1 accepts
    ("horovod.torch", "DistributedOptimizer"): (
        "optimizer", "named_parameters", "compression", "backward_passes_per_step", "op", "gradient_predivide_factor",
        "num_groups", "groups", "sparse_as_dense", "process_set"),
    ("horovod.tensorflow", "DistributedOptimizer"): (
        "optimizer", "name", "use_locking", "device_dense", "device_sparse", "compression", "sparse_as_dense",
        "backward_passes_per_step", "op", "gradient_predivide_factor", "average_aggregated_gradients", "num_groups",
        "groups", "process_set", "scale_local_gradients"),
    ("horovod.tensorflow.keras", "DistributedOptimizer"): (
        "optimizer", "name", "device_dense", "device_sparse", "compression", "sparse_as_dense",
        "gradient_predivide_factor", "op", "backward_passes_per_step", "average_aggregated_gradients", "num_groups",
        "groups", "process_set", "scale_local_gradients"),
    ("horovod.keras", "DistributedOptimizer"): (
        "optimizer", "name", "device_dense", "device_sparse", "compression", "sparse_as_dense",
        "gradient_predivide_factor", "op", "num_groups", "groups"),
    ("horovod.tensorflow", "DistributedGradientTape"): (
        "gradtape", "device_dense", "device_sparse", "compression", "sparse_as_dense", "op",
        "gradient_predivide_factor", "num_groups", "groups", "process_set", "scale_local_gradients"),
    ("horovod.tensorflow", "PartialDistributedGradientTape"): (
        "gradtape", "device_dense", "device_sparse", "compression", "sparse_as_dense", "op",
        "gradient_predivide_factor", "num_groups", "groups", "process_set", "local_layers", "scale_local_gradients"),
    ("horovod.torch", "broadcast_parameters"): ("params", "root_rank"),
    ("horovod.torch", "broadcast_optimizer_state"): ("optimizer", "root_rank", "model"),
    ("horovod.tensorflow", "broadcast_variables"): ("variables", "root_rank", "process_set", "inplace"),
    ("horovod.tensorflow.keras.callbacks", "BroadcastGlobalVariablesCallback"): (
        "root_rank", "device", "local_variables"),
    ("horovod.keras.callbacks", "BroadcastGlobalVariablesCallback"): ("root_rank", "device", "local_variables"),
}
# Horovod's API re-exports: horovod.tensorflow.keras.callbacks.X is looked up under these modules.

# --- step 6: broadcast -------------------------------------------------------------------------
BROADCASTS = ("broadcast_parameters", "broadcast_optimizer_state", "broadcast_variables", "broadcast_global_variables",
              "broadcast_state", "BroadcastGlobalVariablesCallback", "BroadcastGlobalVariablesHook",
              "BroadcastCallback",
              "broadcast_object", "broadcast", "broadcast_")
BROADCAST_CALLBACKS = ("BroadcastGlobalVariablesCallback", "BroadcastCallback")
ELASTIC_STATES = ("TorchState", "TensorFlowKerasState", "KerasState", "TensorFlowState", "ObjectState")

# --- step 7: checkpoints -----------------------------------------------------------------------
SAVES = ("save", "save_weights", "save_model", "write", "ModelCheckpoint", "BackupAndRestore", "save_state_dict",
         "save_pretrained", "save_checkpoint")
NOT_SAVES = ("numpy", "np", "plt", "matplotlib", "json", "pickle", "fig", "f", "file", "sys", "os", "Image", "cv2",
             "imageio", "scipy", "pd", "pandas", "writer", "summary_writer", "tf.summary", "io")
SAVE_CALLBACKS = ("ModelCheckpoint", "BackupAndRestore")

# --- step 8: metrics ---------------------------------------------------------------------------
# Horovod's collectives: every rank must call them, or the ranks that do wait for ever.
COLLECTIVES = ("allreduce", "allreduce_", "grouped_allreduce", "allgather", "allgather_object", "broadcast",
               "broadcast_", "broadcast_object", "alltoall", "reducescatter")
METRIC_AVERAGERS = ("average_metrics", "MetricAverageCallback", "allreduce", "allreduce_", "grouped_allreduce",
                    "allgather", "allgather_object", "metric_average")
# Words that name a metric, as words: `val_acc`, `trainLoss`, `TOP1`, not `acc` in `gradient_accumulation_steps`.
_METRIC_WORDS = ("loss", "losses", "acc", "accs", "accuracy", "accuracies", "metric", "metrics", "score", "scores",
                 "error", "errors", "top1", "top5", "perplexity", "ppl", "f1", "auc", "mse", "rmse", "mae")
REPORTED = re.compile(r"(?:(?<![A-Za-z])(?i:{0})|{1})(?![a-z])".format(
    "|".join(_METRIC_WORDS), "|".join(w.capitalize() for w in _METRIC_WORDS)))
REPORTERS = ("print", "info", "print0", "log", "add", "add_scalar", "write", "log_metrics", "scalar", "add_scalars",
             "set_description", "set_postfix")  # tqdm's progress bar shows what it is given

# --- code that could not be read ---------------------------------------------------------------
# Keywords of a call into code hvdkit cannot read (a library, an absent module) that ask it for distributed
# work: get_optimizer(distributed=True), setup(hvd=hvd), make_loader(rank=..., world_size=...).
UNREAD_HINTS = re.compile(r"distributed|horovod|hvd|rank|world_size|num_replicas|num_workers_total", re.I)


def api_name(qual):
    """('horovod' | 'hvdkit', 'DistributedOptimizer') for a name in Horovod's or hvdkit's API, else None."""
    for module, owner in API_MODULES:
        if qual and qual.startswith(module + "."):
            return owner, qual[len(module) + 1:]
    return None


def in_api(qual):
    """True when the dotted name `qual` is one of Horovod's or hvdkit's modules, or a name inside one
    (`horovod.torch`, `hvdkit.torch.hvd`): what a module kept in a variable or an attribute is checked by."""
    return bool(qual) and api_name(qual + ".x") is not None


def signature(qual):
    """The keywords Horovod accepts for the dotted name `qual`, or None when not in the table."""
    for (module, name), keywords in SIGNATURES.items():
        if qual == f"{module}.{name}":
            return keywords
    return None

# TensorFlow calls that turn TF 2's eager execution off for the whole process (graph mode from then on).
EAGER_OFF = ("disable_eager_execution", "disable_v2_behavior")
