"""The Horovod twins `hvdkit check --against` is tested on: each project's train_hvd.py with explicit edits.

    python tests/check_against/twins.py OUT_DIR      # writes every twin, with its project, into OUT_DIR/<twin>/

Two small projects written for these tests against Horovod's own API (not hvdkit's): torch_fashion (a
DataLoader with DistributedSampler, SGD with momentum, broadcast_parameters) and tf_fashion (a tf.data
pipeline sharded per rank, a GradientTape loop, Adam, Horovod's first-batch broadcast; and the same model
trained with Keras fit, hvd.DistributedOptimizer and Horovod's callbacks). Each sequential script (train.py,
train_fit.py) has its conversion (train_hvd.py, train_fit_hvd.py: the correct twins). Every other twin
breaks one of steps 3-6 the way conversions break it, or makes an equivalent change (op=Sum with the LR
left unscaled); `step` is the step `--against` must explain it by (a tuple: the steps), None for an
equivalent twin.
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "check_mutants"))
from make_mutants import edited  # noqa: E402  (one edit helper for every table of script variants)

HERE = os.path.dirname(os.path.abspath(__file__))

# (project, twin, step it must be explained by (None: equivalent), what it does, [(old, new), ...]); twins
# whose name starts with "fit" are made from train_fit_hvd.py and compared with train_fit.py.
TWINS = [
    ("torch_fashion", "ok", None, "the correct conversion", []),
    ("torch_fashion", "s3", 3, "no DistributedSampler: every rank shuffles all the data with the same seed",
     [("    sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), seed=args.seed)\n"
       "    loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler)\n",
       "    loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True)\n"),
      ("        sampler.set_epoch(epoch)\n", "")]),
    ("torch_fashion", "s4", 4, "the LR of one worker, for a global batch of hvd.size() workers' batches",
     [("lr=args.lr * hvd.size()", "lr=args.lr")]),
    ("torch_fashion", "s5", 5, "no DistributedOptimizer: each rank steps with its own gradients",
     [("    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())\n", "")]),
    ("torch_fashion", "s6", 6, "no broadcast of the initial weights",
     [("    hvd.broadcast_parameters(model.state_dict(), root_rank=0)\n"
       "    hvd.broadcast_optimizer_state(opt, root_rank=0)\n", "")]),
    ("torch_fashion", "sum", None, "gradients summed (op=hvd.Sum) with the LR of one worker: the same update",
     [("lr=args.lr * hvd.size()", "lr=args.lr"), ("named_parameters=model.named_parameters())",
                                                 "named_parameters=model.named_parameters(), op=hvd.Sum)")]),
    ("tf_fashion", "ok", None, "the correct conversion", []),
    ("tf_fashion", "s3", 3, "no shard: every rank shuffles all the data with the same seed",
     [("data.train_set(args.subset).shard(hvd.size(), hvd.rank())", "data.train_set(args.subset)")]),
    ("tf_fashion", "s4", 4, "the LR of one worker", [("Adam(args.lr * hvd.size())", "Adam(args.lr)")]),
    ("tf_fashion", "s34", (3, 4), "no shard and the LR of one worker (one launch for the tests)",
     [("data.train_set(args.subset).shard(hvd.size(), hvd.rank())", "data.train_set(args.subset)"),
      ("Adam(args.lr * hvd.size())", "Adam(args.lr)")]),
    ("tf_fashion", "s5", 5, "a plain GradientTape: each rank applies its own gradients",
     [("        tape = hvd.DistributedGradientTape(tape)\n", "")]),
    ("tf_fashion", "s6", 6, "no broadcast after the first step",
     [("        if first_batch:\n            hvd.broadcast_variables(model.variables, root_rank=0)\n"
       "            hvd.broadcast_variables(opt.variables, root_rank=0)\n", "")]),
    ("tf_fashion", "fit_ok", None, "the correct conversion to Keras fit", []),
    ("tf_fashion", "fit_s6", 6, "no BroadcastGlobalVariablesCallback in fit's callbacks",
     [("hvd.callbacks.BroadcastGlobalVariablesCallback(0), ", "")]),
]


def write(project, twin, directory):
    """Copy `project` into `directory` with train_hvd.py replaced by the twin: (path of the twin, of train.py)."""
    [(what, edits)] = [(w, e) for p, t, _, w, e in TWINS if (p, t) == (project, twin)]
    shutil.copytree(os.path.join(HERE, project), directory, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    base = "train_fit" if twin.startswith("fit") else "train"
    path = os.path.join(directory, f"{base}_hvd_{twin}.py")
    with open(path, "w") as f:
        f.write(edited(os.path.join(HERE, project, f"{base}_hvd.py"), edits, f"{project} {twin}: {what}"))
    return path, os.path.join(directory, f"{base}.py")


def outputs(project, twin, directory):
    """The arguments that send the twin's (and its sequential script's) output files into `directory`."""
    if project == "torch_fashion":
        return ["--out", os.path.join(directory, "model.pt")]
    if twin.startswith("fit"):
        return ["--weights", os.path.join(directory, "model.weights.h5")]
    return ["--ckpt-dir", os.path.join(directory, "ckpt")]


if __name__ == "__main__":
    for project, twin, _, _, _ in TWINS:
        print(write(project, twin, os.path.join(sys.argv[1], f"{project}_{twin}"))[0])
