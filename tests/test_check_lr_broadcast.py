"""`hvdkit check`, static pass, steps 4 and 6: the LR judged by what sets it (Horovod's LR callbacks, a
scheduler's multiplier, a schedule's LR arguments but not its step counts), and a broadcast judged by what
it sends (variables that exist yet, weights rather than an epoch counter). Each broken script is flagged on
its step; its correct twin on none. Scripts are the mutant bases with small edits."""
import os
import sys

import pytest

from hvdkit.check import FLAGGED, UNKNOWN
from hvdkit.check.static import analyze

BASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_mutants")
sys.path.insert(0, BASES)
import make_mutants  # noqa: E402 - the bases and their edits live beside the mutant table


def _flagged(tmp_path, base, edits):
    path = tmp_path / "train.py"
    path.write_text(make_mutants.edited(base, edits))
    findings, _, _ = analyze(str(path))
    return {n: (f.verdict, f.evidence) for n, f in findings.items() if f.verdict in FLAGGED}


KERAS_OPT = "opt = keras.optimizers.SGD(learning_rate=0.01 * hvd.size())"
KERAS_CB = "        hvd.callbacks.MetricAverageCallback(),\n"
TORCH_OPT = "optimizer = torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size(), momentum=0.9)"
TORCH_STEP = "            optimizer.step()\n"


def _warmup(initial_lr):
    return [(KERAS_CB, KERAS_CB + f"        hvd.callbacks.LearningRateWarmupCallback(initial_lr={initial_lr}, "
             "warmup_epochs=1),\n")]


@pytest.mark.parametrize("edits,flagged", [
    (_warmup("0.01"), [4]),                   # ramps to the unscaled 0.01: the scaled optimizer LR is overwritten
    (_warmup("0.01 * hvd.size()"), []),
    ([(KERAS_CB, KERAS_CB + "        hvd.callbacks.LearningRateScheduleCallback(initial_lr=0.01, multiplier=0.5),\n")],
     [4]),
    ([(KERAS_CB, KERAS_CB + "        hvd.callbacks.LearningRateScheduleCallback(initial_lr=0.01 * hvd.size(), "
       "multiplier=0.5),\n")], []),
], ids=["warmup_unscaled", "warmup_scaled", "schedule_unscaled", "schedule_scaled"])
def test_keras_lr_callback_sets_the_lr_from_initial_lr(tmp_path, edits, flagged):
    assert list(_flagged(tmp_path, "base_keras_fit.py", edits)) == flagged


COSINE = """    steps = (64 // hvd.size()) // 16
    schedule = keras.optimizers.schedules.CosineDecay(initial_learning_rate=0.01, decay_steps=2 * steps,
                                                      warmup_target={target}, warmup_steps=steps)
    opt = keras.optimizers.SGD(learning_rate=schedule)"""


@pytest.mark.parametrize("target,flagged", [("0.01", [4]), ("0.01 * hvd.size()", [])])
def test_step_counts_divided_by_size_are_not_the_lr_divided(tmp_path, target, flagged):
    found = _flagged(tmp_path, "base_keras_fit.py", [(KERAS_OPT, COSINE.format(target=target).lstrip())])
    assert list(found) == flagged
    assert all("divided" not in why for _, why in found.values())


LAMBDA = """def lr_factor(epoch, warmup=2):
    if epoch < warmup:
        return 1.0 + (hvd.size() - 1.0) * epoch / warmup
    return {after}


"""


@pytest.mark.parametrize("after,flagged", [("0.1 ** (epoch // 30)", [4]), ("hvd.size() * 0.1 ** (epoch // 30)", [])])
def test_torch_scheduler_multiplier_scaled_by_size(tmp_path, after, flagged):
    edits = [("def main():\n", LAMBDA.format(after=after) + "def main():\n"),
             (TORCH_OPT, TORCH_OPT.replace(" * hvd.size()", "") +
              "\n    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=lambda e: lr_factor(e))"),
             ("        sampler.set_epoch(epoch)\n", "        sampler.set_epoch(epoch)\n        scheduler.step()\n")]
    assert list(_flagged(tmp_path, "base_torch.py", edits)) == flagged


KERAS_BCAST = "        hvd.callbacks.BroadcastGlobalVariablesCallback(0),\n"
EPOCH_BCAST = ("    start_epoch = hvd.broadcast(np.int64(0), 0, name=\"start_epoch\")\n"
               "    model.fit(dataset, epochs=2, initial_epoch=int(start_epoch),")
TF_BCAST = ("            hvd.broadcast_variables(model.variables, root_rank=0)\n"
            "            hvd.broadcast_variables(opt.variables, root_rank=0)\n")


@pytest.mark.parametrize("edits,flagged", [
    ([(KERAS_BCAST, ""), ("    model.fit(dataset, epochs=2,", EPOCH_BCAST)], [6]),  # a counter is not the weights
    ([("    model.fit(dataset, epochs=2,", EPOCH_BCAST)], []),
], ids=["epoch_broadcast_only", "epoch_and_weights_broadcast"])
def test_a_broadcast_of_a_counter_is_not_the_weights(tmp_path, edits, flagged):
    assert list(_flagged(tmp_path, "base_keras_fit.py", edits)) == flagged


def test_a_tensor_broadcast_of_each_variable_is_the_weights(tmp_path):
    loop = ("            for v in model.variables + opt.variables:\n"
            "                v.assign(hvd.broadcast(v, root_rank=0))\n")
    assert _flagged(tmp_path, "base_tf_loop.py", [(TF_BCAST, loop)]) == {}


SUBCLASS = '''class Net(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = tf.keras.layers.Dense(16, activation="relu")
        self.out = tf.keras.layers.Dense(2)

    def call(self, x, training=False):
        return self.out(self.hidden(x))


def main():
'''
TF_MODEL = ('''    model = tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(16, activation="relu"),
                                 tf.keras.layers.Dense(2)])
''')
TF_CKPT = "    checkpoint = tf.train.Checkpoint(model=model, optimizer=opt)\n"
EARLY = TF_CKPT + "    {build}hvd.broadcast_variables(model.variables, root_rank=0)\n"


@pytest.mark.parametrize("model,build,flagged", [
    ("Net()", "", [6]),                      # no variables yet: they are made at the first call, per rank
    ("Net()", "model.build((None, 8))\n    ", []),
    ("tf.keras.Sequential([tf.keras.layers.Dense(16), tf.keras.layers.Dense(2)])", "", [6]),
    ("tf.keras.Sequential([tf.keras.layers.Dense(16, input_shape=(8,)), tf.keras.layers.Dense(2)])", "", []),
], ids=["subclass", "subclass_built", "sequential_no_input", "sequential_input_shape"])
def test_broadcast_before_the_model_has_variables(tmp_path, model, build, flagged):
    edits = [("def main():\n", SUBCLASS), (TF_MODEL, f"    model = {model}\n"),
             (TF_BCAST, "            hvd.broadcast_variables(opt.variables, root_rank=0)\n"),
             (TF_CKPT, EARLY.format(build=build))]
    assert list(_flagged(tmp_path, "base_tf_loop.py", edits)) == flagged


def test_subclassed_model_broadcast_after_the_first_step_is_ok(tmp_path):
    assert _flagged(tmp_path, "base_tf_loop.py", [("def main():\n", SUBCLASS), (TF_MODEL, "    model = Net()\n")]) == {}


@pytest.mark.parametrize("unpack,flagged", [("rank, world = hvd.rank(), hvd.size()", []),
                                            ("world, rank = hvd.rank(), hvd.size()", [4])])
def test_lr_scaled_by_a_name_unpacked_from_a_tuple(tmp_path, unpack, flagged):
    edits = [(TORCH_OPT, f"{unpack}\n    " + TORCH_OPT.replace("hvd.size()", "world"))]
    assert list(_flagged(tmp_path, "base_torch.py", edits)) == flagged


RANK_STEPS = """    steps = len(np.array_split(np.arange(64), hvd.size())[hvd.rank()]) // 16
    schedule = keras.optimizers.schedules.CosineDecay(initial_learning_rate={lr}, decay_steps=2 * steps)
    opt = keras.optimizers.SGD(learning_rate=schedule)"""


@pytest.mark.parametrize("lr,flagged", [("0.01 * hvd.size()", []), ("0.01 * (hvd.rank() + 1)", [4])])
def test_rank_in_step_counts_is_not_the_lr_depending_on_the_rank(tmp_path, lr, flagged):
    assert list(_flagged(tmp_path, "base_keras_fit.py", [(KERAS_OPT, RANK_STEPS.format(lr=lr).lstrip())])) == flagged


SCHEDULED = "\n    scheduler = torch.optim.lr_scheduler.{sched}\n"
STEPPED = ("            optimizer.step()\n", "            optimizer.step()\n            scheduler.step()\n")


@pytest.mark.parametrize("lr,sched,flagged", [
    ("0.01", "OneCycleLR(optimizer, max_lr=0.01 * hvd.size(), total_steps=8)", []),   # the scheduler sets it
    ("0.01 * hvd.size()", "OneCycleLR(optimizer, max_lr=0.01, total_steps=8)", [4]),
    ("0.01", "CyclicLR(optimizer, 0.001 * hvd.size(), 0.01 * hvd.size())", []),
    ("0.01 * hvd.size()", "CyclicLR(optimizer, 0.001 * hvd.size(), 0.01 / hvd.size())", [4]),  # max_lr divided
], ids=["one_cycle_scaled", "one_cycle_unscaled", "cyclic_scaled", "cyclic_divided"])
def test_a_scheduler_that_sets_the_lr_decides_it(tmp_path, lr, sched, flagged):
    edits = [(TORCH_OPT, TORCH_OPT.replace("0.01 * hvd.size()", lr) + SCHEDULED.format(sched=sched).rstrip()),
             STEPPED]
    assert list(_flagged(tmp_path, "base_torch.py", edits)) == flagged


SUMMED = ("named_parameters=model.named_parameters())", "named_parameters=model.named_parameters(), op=hvd.Sum)")


@pytest.mark.parametrize("max_lr,flagged", [("0.01", []), ("0.01 / hvd.size()", [4])], ids=["unscaled", "divided"])
def test_a_scheduler_over_summed_gradients_needs_no_scaling(tmp_path, max_lr, flagged):
    """op=hvd.Sum: the update is that of averaged gradients with the LR x hvd.size(), so the sequential max_lr is
    right; one divided by the size is not."""
    sched = f"OneCycleLR(optimizer, max_lr={max_lr}, total_steps=8)"
    edits = [(TORCH_OPT, TORCH_OPT.replace("0.01 * hvd.size()", "0.01") + SCHEDULED.format(sched=sched).rstrip()),
             STEPPED, SUMMED]
    assert list(_flagged(tmp_path, "base_torch.py", edits)) == flagged


def _config():
    return """def make_config():
    world = hvd.size()
    return {{"epochs": 2, "optimizer": {{"learning_rate": {lr}, "momentum": 0.9}}}}


def main():
"""


@pytest.mark.parametrize("defs,opt,flagged", [
    (_config(), "cfg = make_config()\n    opt = keras.optimizers.SGD(**cfg[\"optimizer\"])", []),
    (_config(), "cfg = make_config()\n    opt = keras.optimizers.SGD(**cfg[\"optimizer\"])", [4]),
    ("def main():\n", "kw = dict(momentum=0.9)\n    kw[\"learning_rate\"] = 0.01 * hvd.size()\n"
     "    opt = keras.optimizers.SGD(**kw)", []),
    ("def main():\n", "kw = dict(momentum=0.9)\n    opt = keras.optimizers.SGD(**kw)", [4]),   # its default LR
], ids=["config_scaled", "config_unscaled", "stored_scaled", "no_lr_in_mapping"])
def test_lr_read_through_keyword_expansion(tmp_path, defs, opt, flagged):
    lr = "0.01 * world" if flagged == [] else "0.01"
    edits = [("def main():\n", defs.format(lr=lr)), (KERAS_OPT, opt)]
    assert list(_flagged(tmp_path, "base_keras_fit.py", edits)) == flagged


def test_unreadable_keyword_expansion_cannot_tell_the_lr(tmp_path):
    opt = "opt = keras.optimizers.SGD(**np.load(os.environ[\"OPT\"], allow_pickle=True).item())"
    path = tmp_path / "train.py"
    with open(os.path.join(BASES, "base_keras_fit.py")) as fh:
        path.write_text(fh.read().replace(KERAS_OPT, opt))
    findings, _, _ = analyze(str(path))
    assert findings[4].verdict == UNKNOWN and "default" not in findings[4].evidence


TORCH_BCAST = ("    hvd.broadcast_parameters(model.state_dict(), root_rank=0)\n"
               "    hvd.broadcast_optimizer_state(optimizer, root_rank=0)\n")
RESUME = ("    path = os.path.join(args.ckpt_dir, \"model.pt\")\n"
          "    if {rank0}os.path.exists(path):\n"
          "        model.load_state_dict(torch.load(path))\n")
RANK0 = "hvd.rank() == 0 and "


@pytest.mark.parametrize("edits,flagged", [
    ([(TORCH_BCAST, TORCH_BCAST + RESUME.format(rank0=RANK0))], [6]),  # only rank 0 resumes: others keep the broadcast
    ([(TORCH_BCAST, RESUME.format(rank0=RANK0) + TORCH_BCAST)], []),   # rank 0 loads, then the broadcast spreads it
    ([(TORCH_BCAST, TORCH_BCAST + RESUME.format(rank0=""))], []),      # every rank loads the same file
], ids=["rank0_load_after_broadcast", "rank0_load_then_broadcast", "every_rank_loads_after"])
def test_rank0_load_after_the_broadcast(tmp_path, edits, flagged):
    assert list(_flagged(tmp_path, "base_torch.py", edits)) == flagged


TF_EARLY_BCAST = ("    hvd.broadcast_variables(model.variables, root_rank=0)\n"
                  "    hvd.broadcast_variables(opt.variables, root_rank=0)\n")
TF_RESTORE = ("    if hvd.rank() == 0:\n"
              "        checkpoint.restore(tf.train.latest_checkpoint(args.ckpt_dir))\n")


@pytest.mark.parametrize("edits,flagged", [
    ([(TF_BCAST, "            pass\n"), (TF_CKPT, TF_CKPT + TF_EARLY_BCAST + TF_RESTORE)], [6]),
    ([(TF_BCAST, "            pass\n"), (TF_CKPT, TF_CKPT + TF_RESTORE + TF_EARLY_BCAST)], []),
    ([(TF_CKPT, TF_CKPT + TF_RESTORE)], []),     # the first batch's broadcast comes after the restore
], ids=["restore_after_broadcast", "restore_then_broadcast", "restore_then_first_batch_broadcast"])
def test_rank0_checkpoint_restore_after_the_broadcast(tmp_path, edits, flagged):
    assert list(_flagged(tmp_path, "base_tf_loop.py", edits)) == flagged


HELPER = "def build_opt(params, **kwargs):\n    return torch.optim.SGD(params, **kwargs)\n\n\ndef main():\n"


@pytest.mark.parametrize("lr,flagged", [("0.01 * hvd.size()", []), ("0.01", [4])])
def test_lr_passed_through_a_helpers_kwargs(tmp_path, lr, flagged):
    opt = f"optimizer = build_opt(model.parameters(), lr={lr}, momentum=0.9)"
    edits = [("def main():\n", HELPER), (TORCH_OPT, opt)]
    assert list(_flagged(tmp_path, "base_torch.py", edits)) == flagged
