"""The mutants of hvdkit check's test suite: each of the eight steps removed, and broken the way users break it.

    python tests/check_mutants/make_mutants.py OUT_DIR      # writes the mutants into OUT_DIR

Every mutant is one of the three base scripts with the explicit edits below (each `old` must occur
exactly once). The mutants are made when needed (tests/test_check_static.py and benchmarks/check_bench.py
write them into a temporary directory), not committed; the three that tests/test_check_run.py reads
stay beside this file until it makes its own (KEPT; a test checks they are what the table makes).
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
BASES = {"torch": "base_torch.py", "tf_loop": "base_tf_loop.py", "keras_fit": "base_keras_fit.py"}

_TF_PIN = ('''    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    tf.config.threading.set_intra_op_parallelism_threads(1)
''')

_KERAS_CKPT = ('''    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.ckpt_dir, "model.weights.h5"),
                                                         save_weights_only=True))
''')

# (flavour, step, kind, what the mutant does, [(old, new), ...])
MUTANTS = [
    # --- PyTorch ------------------------------------------------------------------------------
    ("torch", 1, "removed", "no hvd.init()", [("    hvd.init()\n", "")]),
    ("torch", 1, "broken", "hvd.init() after the sampler asked for size and rank",
     [("    hvd.init()\n", ""), ("    loader = DataLoader(", "    hvd.init()\n    loader = DataLoader(")]),
    ("torch", 2, "removed", "no threads set, no GPU pinned, the model and batches put on the GPU",
     [("    torch.set_num_threads(1)\n    if torch.cuda.is_available():\n        "
       "torch.cuda.set_device(hvd.local_rank())\n",
       '    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'),
      ("torch.nn.Linear(16, 2))", "torch.nn.Linear(16, 2)).to(device)"),
      ("            optimizer.zero_grad()\n", "            x, y = x.to(device), y.to(device)\n"
       "            optimizer.zero_grad()\n")]),
    ("torch", 2, "broken", "GPU chosen by the global rank",
     [("    torch.set_num_threads(1)\n", ""), ("set_device(hvd.local_rank())", "set_device(hvd.rank())")]),
    ("torch", 3, "removed", "no sampler: every rank reads all the data",
     [("    sampler = DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank())\n", ""),
      ("batch_size=16, sampler=sampler)", "batch_size=16, shuffle=True)"), ("        sampler.set_epoch(epoch)\n", "")]),
    ("torch", 3, "broken", "sampler made but not given to the DataLoader",
     [("batch_size=16, sampler=sampler)", "batch_size=16, shuffle=True)")]),
    ("torch", 4, "removed", "learning rate not scaled", [("lr=0.01 * hvd.size()", "lr=0.01")]),
    ("torch", 4, "broken", "learning rate divided by the number of ranks", [("lr=0.01 * hvd.size()",
                                                                             "lr=0.01 / hvd.size()")]),
    ("torch", 5, "removed", "no DistributedOptimizer",
     [("    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())\n", "")]),
    ("torch", 5, "broken", "wrapped optimizer never used: the loop steps the plain one",
     [("    optimizer = hvd.DistributedOptimizer(optimizer,",
       "    dist_optimizer = hvd.DistributedOptimizer(optimizer,")]),
    ("torch", 6, "removed", "no broadcast",
     [("    hvd.broadcast_parameters(model.state_dict(), root_rank=0)\n    hvd.broadcast_optimizer_state(optimizer, "
       "root_rank=0)\n", "")]),
    ("torch", 6, "broken", "broadcast behind `nsteps == 0 and epoch == 0`, nsteps being the steps per epoch",
     [("    hvd.broadcast_parameters(model.state_dict(), root_rank=0)\n    hvd.broadcast_optimizer_state(optimizer, "
       "root_rank=0)\n", ""),
      ("    for epoch in range(2):\n", "    nsteps = len(loader)\n    for epoch in range(2):\n"),
      ("            optimizer.zero_grad()\n", "            if nsteps == 0 and epoch == 0:\n"
       "                hvd.broadcast_parameters(model.state_dict(), root_rank=0)\n"
       "            optimizer.zero_grad()\n")]),
    ("torch", 7, "removed", "no checkpoint",
     [("            torch.save(model.state_dict(), os.path.join(args.ckpt_dir, \"model.pt\"))\n", "")]),
    ("torch", 7, "broken", "every rank writes the checkpoint",
     [("            torch.save(model.state_dict(), os.path.join(args.ckpt_dir, \"model.pt\"))\n", ""),
      ("        if hvd.rank() == 0:\n", "        torch.save(model.state_dict(), os.path.join(args.ckpt_dir, "
                                        "\"model.pt\"))\n"
       "        if hvd.rank() == 0:\n")]),
    ("torch", 8, "removed", "rank 0 prints its own loss",
     [("        totals = hvd.allreduce(torch.tensor([loss_sum, count]), op=hvd.Sum)\n", ""),
      ("totals[0] / totals[1]", "loss_sum / count")]),
    ("torch", 8, "broken", "per-rank means summed and reported as the mean",
     [("        totals = hvd.allreduce(torch.tensor([loss_sum, count]), op=hvd.Sum)\n",
       "        mean_loss = hvd.allreduce(torch.tensor(loss_sum / count), op=hvd.Sum)\n"),
      ("totals[0] / totals[1]", "mean_loss")]),
    # --- TensorFlow custom loop ---------------------------------------------------------------
    ("tf_loop", 1, "removed", "no hvd.init()", [("    hvd.init()\n", "")]),
    ("tf_loop", 1, "broken", "hvd.init() after the data was sharded with size and rank",
     [("    hvd.init()\n", ""), ("    model = tf.keras.Sequential(",
                                 "    hvd.init()\n    model = tf.keras.Sequential(")]),
    ("tf_loop", 2, "removed", "no GPU pinned, no threads set", [(_TF_PIN, "")]),
    ("tf_loop", 2, "broken", "GPU chosen by the global rank",
     [("gpus[hvd.local_rank()]", "gpus[hvd.rank()]"), ("    tf.config.threading.set_intra_op_parallelism_threads(1)\n",
                                                       "")]),
    ("tf_loop", 3, "removed", "no shard: every rank reads all the data", [(".shard(hvd.size(), hvd.rank())", "")]),
    ("tf_loop", 3, "broken", "shard's result thrown away",
     [(".shard(hvd.size(), hvd.rank())", ""),
      ("    model = tf.keras.Sequential(",
       "    dataset.shard(hvd.size(), hvd.rank())\n    model = tf.keras.Sequential(")]),
    ("tf_loop", 4, "removed", "learning rate not scaled", [("learning_rate=0.01 * hvd.size()", "learning_rate=0.01")]),
    ("tf_loop", 4, "broken", "learning rate scaled by the rank, not the size",
     [("learning_rate=0.01 * hvd.size()", "learning_rate=0.01 * (hvd.rank() + 1)")]),
    ("tf_loop", 5, "removed", "no DistributedGradientTape", [("        tape = hvd.DistributedGradientTape(tape)\n",
                                                              "")]),
    ("tf_loop", 5, "broken", "tape wrapped, then the unwrapped tape's gradients applied",
     [("        tape = hvd.DistributedGradientTape(tape)\n",
       "        dist_tape = hvd.DistributedGradientTape(tape)\n")]),
    ("tf_loop", 6, "removed", "no broadcast",
     [("        if first_batch:\n            hvd.broadcast_variables(model.variables, root_rank=0)\n"
       "            hvd.broadcast_variables(opt.variables, root_rank=0)\n", "")]),
    ("tf_loop", 6, "broken", "first_batch tested after the step counter was incremented",
     [("            loss = train_step(features, labels, step == 0)\n            step += 1\n",
       "            step += 1\n            loss = train_step(features, labels, step == 0)\n")]),
    ("tf_loop", 7, "removed", "no checkpoint",
     [("            checkpoint.write(os.path.join(args.ckpt_dir, \"ckpt\"))\n", "")]),
    ("tf_loop", 7, "broken", "checkpoint written by every rank at every step",
     [("            checkpoint.write(os.path.join(args.ckpt_dir, \"ckpt\"))\n", ""),
      ("            step += 1\n", "            step += 1\n            checkpoint.write(os.path.join(args.ckpt_dir, "
                                  "\"ckpt\"))\n")]),
    ("tf_loop", 8, "removed", "rank 0 prints its own loss",
     [("        totals = hvd.allreduce(tf.constant([loss_sum, count], tf.float64), op=hvd.Sum)\n", ""),
      ("float(totals[0] / totals[1])", "loss_sum / count")]),
    ("tf_loop", 8, "broken", "metrics averaged on rank 0 only",
     [("        totals = hvd.allreduce(tf.constant([loss_sum, count], tf.float64), op=hvd.Sum)\n        if hvd.rank() "
       "== 0:\n",
       "        if hvd.rank() == 0:\n            totals = hvd.allreduce(tf.constant([loss_sum, count], tf.float64), "
       "op=hvd.Sum)\n")]),
    # --- Keras fit ----------------------------------------------------------------------------
    ("keras_fit", 1, "removed", "no hvd.init()", [("    hvd.init()\n", "")]),
    ("keras_fit", 1, "broken", "hvd.init() after the optimizer's LR asked for the size",
     [("    hvd.init()\n", ""), ("    opt = hvd.DistributedOptimizer(opt)\n", "    hvd.init()\n    opt = "
                                                                              "hvd.DistributedOptimizer(opt)\n")]),
    ("keras_fit", 2, "removed", "no GPU pinned, no threads set", [(_TF_PIN, "")]),
    ("keras_fit", 2, "broken", "every rank on GPU 0",
     [("gpus[hvd.local_rank()]", "gpus[0]"), ("    tf.config.threading.set_intra_op_parallelism_threads(1)\n", "")]),
    ("keras_fit", 3, "removed", "no shard: every rank reads all the data", [(".shard(hvd.size(), hvd.rank())", "")]),
    ("keras_fit", 3, "broken", "repeated shard, steps per epoch counted on the whole data set",
     [(".shuffle(32).batch(16)", ".shuffle(32).batch(16).repeat()"),
      ("model.fit(dataset, epochs=2,", "model.fit(dataset, steps_per_epoch=len(x) // 16, epochs=2,")]),
    ("keras_fit", 4, "removed", "learning rate not scaled", [("learning_rate=0.01 * hvd.size()",
                                                              "learning_rate=0.01")]),
    ("keras_fit", 4, "broken", "scaled LR computed, the unscaled one given to the optimizer",
     [("    opt = keras.optimizers.SGD(learning_rate=0.01 * hvd.size())\n",
       "    base_lr = 0.01\n    scaled_lr = base_lr * hvd.size()\n    opt = "
       "keras.optimizers.SGD(learning_rate=base_lr)\n")]),
    ("keras_fit", 5, "removed", "no DistributedOptimizer", [("    opt = hvd.DistributedOptimizer(opt)\n", "")]),
    ("keras_fit", 5, "broken", "model compiled with the unwrapped optimizer",
     [("    opt = hvd.DistributedOptimizer(opt)\n", "    dist_opt = hvd.DistributedOptimizer(opt)\n")]),
    ("keras_fit", 6, "removed", "no broadcast callback", [("        "
                                                           "hvd.callbacks.BroadcastGlobalVariablesCallback(0),\n",
                                                           "")]),
    ("keras_fit", 6, "broken", "broadcast callback added on rank 0 only",
     [("        hvd.callbacks.BroadcastGlobalVariablesCallback(0),\n", ""),
      ("    if hvd.rank() == 0:\n", "    if hvd.rank() == 0:\n        "
                                    "callbacks.append(hvd.callbacks.BroadcastGlobalVariablesCallback(0))\n")]),
    ("keras_fit", 7, "removed", "no checkpoint", [(_KERAS_CKPT, "")]),
    ("keras_fit", 7, "broken", "every rank writes the checkpoint",
     [(_KERAS_CKPT,
       '''    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.ckpt_dir, "model.weights.h5"),
                                                     save_weights_only=True))
''')]),
    ("keras_fit", 8, "removed", "no metric averaging", [("        hvd.callbacks.MetricAverageCallback(),\n", "")]),
    ("keras_fit", 8, "broken", "MetricAverageCallback made but never passed to fit",
     [("        hvd.callbacks.MetricAverageCallback(),\n", ""),
      ("    callbacks = [\n", "    metric_average = hvd.callbacks.MetricAverageCallback()\n    callbacks = [\n")]),
]


def name(flavour, step, kind):
    return f"{flavour}_s{step}_{kind}.py"


def edited(base, edits, what=None):
    """The text of the base script `base` (a file beside this one) with `edits` applied: [(old, new)], each
    `old` found exactly once (tests make their own variants of the bases with it too)."""
    with open(os.path.join(HERE, base)) as fh:
        text = fh.read()
    for old, new in edits:
        if text.count(old) != 1:
            raise ValueError(f"{what or base}: edit target occurs {text.count(old)} times: {old!r}")
        text = text.replace(old, new)
    return text


def source(flavour, step, kind):
    """The mutant's text: its base with the table's edits applied (each `old` found exactly once)."""
    [(what, edits)] = [(w, e) for f, s, k, w, e in MUTANTS if (f, s, k) == (flavour, step, kind)]
    text = edited(BASES[flavour], edits, name(flavour, step, kind))
    first, rest = text.split("\n", 1)
    return f'"""Mutant of {BASES[flavour]}, step {step} {kind}: {what}.\n' + rest if first.startswith('"""') else text


KEPT = ("torch_s6_removed.py", "torch_s7_broken.py", "tf_loop_s6_broken.py")


def write(directory):
    """Write every mutant into `directory`: {(flavour, step, kind): path}."""
    os.makedirs(directory, exist_ok=True)
    out = {}
    for flavour, step, kind, _, _ in MUTANTS:
        path = os.path.join(directory, name(flavour, step, kind))
        with open(path, "w") as fh:
            fh.write(source(flavour, step, kind))
        out[(flavour, step, kind)] = path
    return out


def main(argv):
    if len(argv) != 1:
        raise SystemExit("usage: python tests/check_mutants/make_mutants.py OUT_DIR")
    write(argv[0])
    print(f"wrote {len(MUTANTS)} mutants in {argv[0]}")


if __name__ == "__main__":
    import sys
    main(sys.argv[1:])
