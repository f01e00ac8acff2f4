"""hvdkit check's class cases: for each generic class of mistake seen in real scripts (issue 24), a broken
script flagged on its step and a correct twin flagged on none. Written from scratch for hvdkit: every case
is one of the trainers beside this file with the explicit edits below (each `old` occurs exactly once).

    CASES: [Case(name, step, trainer, broken edits, correct-twin edits)]
"""
import os
from typing import NamedTuple, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
TORCH, TF, KERAS, CLASSES = "torch_trainer.py", "tf_trainer.py", "keras_trainer.py", "class_trainer.py"


class Case(NamedTuple):
    name: str
    step: Optional[int]  # the step the broken script gets wrong; None: it only crashes
    trainer: str
    broken: list
    correct: list
    crash: Optional[str] = None  # the error the broken script certainly raises (the static crash finding)


# --- pieces of the trainers that cases edit ----------------------------------------------------------
T_SAMPLER = ("    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), "
             "shuffle=True)\n")
T_LOADER = "    train_loader = DataLoader(train_set, batch_size=opts.batch, sampler=train_sampler)\n"
T_NO_SAMPLER = [(T_SAMPLER, ""), ("sampler=train_sampler)", "shuffle=True)"),
                ("        train_sampler.set_epoch(epoch)\n", "")]
T_NO_LOADER = [(T_SAMPLER, ""), ("        train_sampler.set_epoch(epoch)\n", "")]
T_DATA = "    train_set = build_data(opts.samples)\n"
T_LOOP = "        for inputs, targets in train_loader:\n"
T_ENUM = "        for batch_no, (inputs, targets) in enumerate(train_loader):\n"
T_SAVE = '            torch.save(net.state_dict(), os.path.join(opts.out, f"net-{epoch}.pt"))\n'
T_STEP = "            sgd.step()\n"
T_BCAST = "    hvd.broadcast_parameters(net.state_dict(), root_rank=0)\n"
T_SGD = "    sgd = torch.optim.SGD(net.parameters(), lr=opts.base_lr * hvd.size())\n"
T_WRAP = "    sgd = hvd.DistributedOptimizer(sgd, named_parameters=net.named_parameters())\n"
T_SUMS = "        sums = hvd.allreduce(torch.tensor([total, seen], dtype=torch.float64), op=hvd.Sum)\n"
T_PRINT = '            print(f"epoch {epoch} mse {float(sums[0] / sums[1]):.5f}")\n'
T_PIN = ("    torch.set_num_threads(1)\n    if torch.cuda.is_available():\n"
         "        torch.cuda.set_device(hvd.local_rank())\n")
T_DEVICE = '    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
T_NET = "    net = torch.nn.Linear(4, 1).to(device)\n"
T_BACKWARD = "            error.backward()\n            sgd.step()\n"
T_ARGS = '    cli.add_argument("--out", default=".")\n'

F_SHARD = "    data = data.shard(hvd.size(), hvd.rank()).shuffle(256).batch(BATCH)\n"
F_TAPE = "            tape = hvd.DistributedGradientTape(tape)\n"
F_GRADS = "            grads = tape.gradient(loss, clf.trainable_variables)\n"
F_BCAST = ("            if step == 0:\n                hvd.broadcast_variables(clf.variables, root_rank=0)\n"
           "                hvd.broadcast_variables(adam.variables, root_rank=0)\n")
F_MEAN = "        mean_loss = hvd.allreduce(tf.constant(loss_total / batches), op=hvd.Average)\n"
F_PIN = "    gpus = tf.config.list_physical_devices(\"GPU\")\n"

K_PART = ("per_rank = len(rows) // hvd.size()\npart = slice(hvd.rank() * per_rank, (hvd.rank() + 1) * per_rank)\n"
          "train = tf.data.Dataset.from_tensor_slices((rows[part], labels[part])).shuffle(128).batch(20)\n")
K_FIT = "model.fit(train, epochs=3, callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)\n"

_CRITIC = ("    critic = torch.nn.Linear(1, 1).to(device)\n"
           "    critic_opt = torch.optim.SGD(critic.parameters(), lr=0.01 * hvd.size())\n")
_CRITIC_STEP = ("            critic_opt.zero_grad()\n            critic(net(inputs)).mean().backward()\n"
                "            critic_opt.step()\n")
_HELPER = ("def average(value, name):\n    return hvd.allreduce(tf.constant(value), name=name)\n\n\n")
_SCALER = "    scaler = torch.cuda.amp.GradScaler()\n"

CASES = [
    # --- guards judged by their value --------------------------------------------------------------------
    Case("checkpoint_every_k_batches", 7, TORCH,
         [(T_SAVE, ""), (T_LOOP, T_ENUM),
          (T_STEP, T_STEP + "            if batch_no % 4 == 0:\n    " + T_SAVE)],
         [(T_SAVE, ""), (T_LOOP, T_ENUM),
          (T_STEP, T_STEP + "            if batch_no % 4 == 0 and hvd.rank() == 0:\n    " + T_SAVE)]),
    Case("flag_set_by_try_import", 6, TORCH,
         [("import horovod.torch as hvd\n", "try:\n    import horovod.torch as hvd\n    USE_HVD = True\n"
           "except ImportError:\n    USE_HVD = False\n"), (T_BCAST, "    if not USE_HVD:\n    " + T_BCAST)],
         [("import horovod.torch as hvd\n", "try:\n    import horovod.torch as hvd\n    USE_HVD = True\n"
           "except ImportError:\n    USE_HVD = False\n"), (T_BCAST, "    if USE_HVD:\n    " + T_BCAST)]),
    Case("broadcast_at_steps_per_epoch_zero", 6, TORCH,
         [(T_BCAST, "    steps_per_epoch = len(train_loader)\n"), (T_LOOP, T_ENUM),
          ("            sgd.zero_grad()\n", "            if steps_per_epoch == 0 and epoch == 0:\n"
           "                hvd.broadcast_parameters(net.state_dict(), root_rank=0)\n            sgd.zero_grad()\n")],
         [(T_BCAST, "    steps_per_epoch = len(train_loader)\n"), (T_LOOP, T_ENUM),
          ("            sgd.zero_grad()\n", "            if batch_no == 0 and epoch == 0:\n"
           "                hvd.broadcast_parameters(net.state_dict(), root_rank=0)\n            sgd.zero_grad()\n")]),
    Case("counter_incremented_before_its_test", 6, TF,
         [(F_BCAST, ""), ("            step += 1\n", "            step += 1\n" + F_BCAST)], []),
    # --- sharding: what the ranks take together ----------------------------------------------------------
    Case("per_rank_files", 3, TORCH,
         T_NO_SAMPLER + [(T_DATA, '    part = np.load("train.npz")\n'
                                  '    train_set = TensorDataset(torch.from_numpy(part["x"]), '
                                  'torch.from_numpy(part["y"]))\n')],
         T_NO_SAMPLER + [(T_DATA, '    part = np.load(f"train-{hvd.rank()}.npz")\n'
                                  '    train_set = TensorDataset(torch.from_numpy(part["x"]), '
                                  'torch.from_numpy(part["y"]))\n')]),
    Case("file_list_split_and_scattered", 3, TORCH,
         T_NO_SAMPLER + [("import numpy as np\n", "import glob\n\nimport numpy as np\nfrom mpi4py import MPI\n"),
                         (T_DATA, '    names = sorted(glob.glob("parts/*.npy"))\n'
                                  "    mine = MPI.COMM_WORLD.bcast(names, root=0)\n"
                                  "    train_set = TensorDataset(*[torch.from_numpy(np.load(n)) for n in mine])\n")],
         T_NO_SAMPLER + [("import numpy as np\n", "import glob\n\nimport numpy as np\nfrom mpi4py import MPI\n"),
                         (T_DATA, '    names = np.array_split(sorted(glob.glob("parts/*.npy")), hvd.size())\n'
                                  "    mine = MPI.COMM_WORLD.scatter(names, root=0)\n"
                                  "    train_set = TensorDataset(*[torch.from_numpy(np.load(n)) for n in mine])\n")]),
    Case("library_loader_given_the_rank", 3, TORCH,
         T_NO_LOADER + [("import numpy as np\n", "import numpy as np\nfrom recordlib import StreamingLoader\n"),
                        (T_LOADER, '    train_loader = StreamingLoader("records/", batch_size=opts.batch)\n')],
         T_NO_LOADER + [("import numpy as np\n", "import numpy as np\nfrom recordlib import StreamingLoader\n"),
                         (T_LOADER, '    train_loader = StreamingLoader("records/", batch_size=opts.batch, '
                                    "part_count=hvd.size(), part_index=hvd.rank())\n")]),
    Case("overlapping_random_subsets", 3, KERAS,
         [(K_PART, "pick = np.random.choice(len(rows), len(rows) // hvd.size(), replace=False)\n"
                   "train = tf.data.Dataset.from_tensor_slices((rows[pick], labels[pick])).shuffle(128).batch(20)\n")],
         [(K_PART, "order = np.random.RandomState(5).permutation(len(rows))\npick = order[hvd.rank()::hvd.size()]\n"
                   "train = tf.data.Dataset.from_tensor_slices((rows[pick], labels[pick])).shuffle(128).batch(20)\n")]),
    Case("copies_of_one_take", 3, TF,
         [(F_SHARD, "    data = split(data.shuffle(256), hvd.size())[hvd.rank()].batch(BATCH)\n"),
          ("def main(", "def split(ds, parts):\n    share = 512 // parts\n    return [ds.take(share) for _ in "
                        "range(parts)]"
                        "\n\n\ndef main(")],
         [(F_SHARD, "    data = split(data, hvd.size())[hvd.rank()].shuffle(256).batch(BATCH)\n"),
          ("def main(", "def split(ds, parts):\n    share = 512 // parts\n"
                        "    return [ds.skip(i * share).take(share) for i in range(parts)]\n\n\ndef main(")]),
    Case("unseeded_split_before_the_sampler", 3, TORCH,
         [("import numpy as np\n", "import numpy as np\nfrom sklearn.model_selection import train_test_split\n"),
          (T_DATA, "    full = build_data(opts.samples)\n    kept, _ = train_test_split(np.arange(opts.samples), "
                   "test_size=0.25)\n"
                   "    train_set = torch.utils.data.Subset(full, kept)\n")],
         [("import numpy as np\n", "import numpy as np\nfrom sklearn.model_selection import train_test_split\n"),
          (T_DATA, "    full = build_data(opts.samples)\n"
                   "    kept, _ = train_test_split(np.arange(opts.samples), test_size=0.25, random_state=1)\n"
                   "    train_set = torch.utils.data.Subset(full, kept)\n")]),
    Case("steps_counted_on_the_whole_data", 3, KERAS,
         [(".shuffle(128).batch(20)\n", ".shuffle(128).batch(20).repeat()\n"),
          ("model.fit(train, epochs=3,", "model.fit(train, steps_per_epoch=len(rows) // 20, epochs=3,")],
         [(".shuffle(128).batch(20)\n", ".shuffle(128).batch(20).repeat()\n"),
          ("model.fit(train, epochs=3,", "model.fit(train, steps_per_epoch=per_rank // 20, epochs=3,")]),
    Case("steps_divided_on_top_of_the_sampler", 3, TORCH,
         [(T_LOOP, "        steps = len(train_loader) // hvd.size()\n"
                   "        for inputs, targets in zip(range(steps), train_loader):\n")],
         [(T_LOOP, "        steps = len(train_loader)\n        for inputs, targets in zip(range(steps), "
                   "train_loader):\n")]),
    Case("step_cap_on_data_never_repeated", 3, TF,
         [(F_SHARD, "    data = data.shuffle(256).batch(BATCH)\n"),
          ("        for x, y in data:\n", "        for x, y in data.take(4000 // hvd.size()):\n")],
         [(F_SHARD, "    data = data.shuffle(256).repeat().batch(BATCH)\n"),
          ("        for x, y in data:\n", "        for x, y in data.take(4000 // hvd.size()):\n")]),
    Case("sampler_and_shuffle_true", 3, TORCH,
         [("sampler=train_sampler)", "sampler=train_sampler, shuffle=True)")], [], crash="ValueError"),
    # --- metrics -----------------------------------------------------------------------------------------
    Case("mean_of_per_rank_means", 8, TORCH,
         [(T_SUMS, ""), (T_PRINT, '            print(f"epoch {epoch} mse {total / seen:.5f}")\n')],
         [(T_SUMS, "        mean = hvd.allreduce(torch.tensor(total / seen))\n"),
          (T_PRINT, '            print(f"epoch {epoch} mse {float(mean):.5f}")\n')]),
    Case("rank0_evaluates_the_whole_set", 8, TORCH,
         [(T_SUMS, ""), (T_PRINT, '            print(f"epoch {epoch} val mse {val_error:.5f}")\n'),
          ("        if hvd.rank() == 0:\n", "        val_set = build_data(64)\n"
           "        val_loader = DataLoader(val_set, batch_size=64, sampler=DistributedSampler(val_set, "
           "num_replicas=hvd.size(), rank=hvd.rank()))\n"
           "        val_error = sum(float(torch.nn.functional.mse_loss(net(a).squeeze(1), b)) for a, b in val_loader)\n"
           "        if hvd.rank() == 0:\n")],
         [(T_SUMS, ""), (T_PRINT, '            print(f"epoch {epoch} val mse {val_error:.5f}")\n'),
          ("        if hvd.rank() == 0:\n", "        val_loader = DataLoader(build_data(64), batch_size=64)\n"
           "        val_error = sum(float(torch.nn.functional.mse_loss(net(a).squeeze(1), b)) for a, b in val_loader)\n"
           "        if hvd.rank() == 0:\n")]),
    Case("average_helper_never_called", 8, TF,
         [("def main(", _HELPER + "def main("), (F_MEAN, "        mean_loss = loss_total / batches\n")],
         [("def main(", _HELPER + "def main("), (F_MEAN,
                                                 '        mean_loss = average(loss_total / batches, "loss")\n')]),
    Case("last_batch_averaged_as_the_epoch", 8, TF,
         [(F_MEAN, "        mean_loss = hvd.allreduce(loss, op=hvd.Average)\n")], []),
    Case("average_assigned_and_never_read", 8, TORCH,
         [(T_SUMS, "        mse = total / seen\n        avg_mse = hvd.allreduce(torch.tensor(mse)).item()\n"),
          (T_PRINT, '            print(f"epoch {epoch} mse {mse:.5f}")\n')],
         [(T_SUMS, "        mse = total / seen\n        avg_mse = hvd.allreduce(torch.tensor(mse)).item()\n"),
          (T_PRINT, '            print(f"epoch {epoch} mse {avg_mse:.5f}")\n')]),
    # --- learning rate -----------------------------------------------------------------------------------
    Case("optimizer_of_another_library", 4, TORCH,
         [("import numpy as np\n", "import numpy as np\nfrom transformers import AdamW\n"),
          (T_SGD, "    sgd = AdamW(net.parameters(), lr=opts.base_lr)\n")],
         [("import numpy as np\n", "import numpy as np\nfrom transformers import AdamW\n"),
          (T_SGD, "    sgd = AdamW(net.parameters(), lr=opts.base_lr * hvd.size())\n")]),
    Case("one_cycle_max_lr_not_scaled", 4, TORCH,
         [(T_WRAP, T_WRAP + "    sched = torch.optim.lr_scheduler.OneCycleLR(sgd, max_lr=opts.base_lr, "
                            "total_steps=100)\n"),
          (T_STEP, T_STEP + "            sched.step()\n")],
         [(T_WRAP, T_WRAP + "    sched = torch.optim.lr_scheduler.OneCycleLR(sgd, max_lr=opts.base_lr * hvd.size(), "
                            "total_steps=100)\n"),
          (T_STEP, T_STEP + "            sched.step()\n")]),
    Case("lr_scaled_by_local_size", 4, TORCH, [("lr=opts.base_lr * hvd.size()", "lr=opts.base_lr * hvd.local_size()")],
         []),
    # --- pinning -----------------------------------------------------------------------------------------
    Case("set_device_after_placement", 2, TORCH,
         [(T_DEVICE, ""), (T_NET, ""), (T_PIN, T_DEVICE + T_NET + T_PIN)], []),
    Case("fixed_gpu_after_pinning", 2, TORCH, [('torch.device("cuda" if', 'torch.device("cuda:0" if')], []),
    Case("visible_devices_list_beside_local_rank", 2, TF,
         [("import os\n", 'import os\n\nos.environ["CUDA_VISIBLE_DEVICES"] = "1"\n'), ("gpus[hvd.local_rank()]",
                                                                                       "gpus[0]")],
         [("import os\n", 'import os\n\nos.environ["CUDA_VISIBLE_DEVICES"] = "0,1,2,3"\n')]),
    Case("cpu_only_script", 2, TORCH,
         [("    torch.set_num_threads(1)\n", ""), ("        torch.cuda.set_device(hvd.local_rank())\n",
                                                   "        pass\n")],
         [(T_PIN, ""), (T_DEVICE, '    device = torch.device("cpu")\n')]),
    # --- optimizer / broadcast ---------------------------------------------------------------------------
    Case("grad_scaler_without_synchronize", 5, TORCH,
         [(T_WRAP, T_WRAP + _SCALER), (T_BACKWARD, "            scaler.scale(error).backward()\n"
                                                   "            scaler.step(sgd)\n            scaler.update()\n")],
         [(T_WRAP, T_WRAP + _SCALER), (T_BACKWARD, "            scaler.scale(error).backward()\n            "
                                                   "sgd.synchronize()\n"
                                                   "            scaler.unscale_(sgd)\n            with "
                                                   "sgd.skip_synchronize():\n"
                                                   "                scaler.step(sgd)\n            scaler.update()\n")]),
    Case("clipping_without_synchronize", 5, TORCH,
         [(T_BACKWARD, "            error.backward()\n            torch.nn.utils.clip_grad_norm_(net.parameters(), "
                       "1.0)\n"
                       "            sgd.step()\n")],
         [(T_BACKWARD, "            error.backward()\n            sgd.synchronize()\n"
                       "            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)\n"
                       "            with sgd.skip_synchronize():\n                sgd.step()\n")]),
    Case("named_parameters_of_a_part", 5, TORCH,
         [(T_NET, "    encoder = torch.nn.Linear(4, 3)\n    decoder = torch.nn.Linear(3, 1)\n"
                  "    net = torch.nn.Sequential(encoder, decoder).to(device)\n"),
          ("named_parameters=net.named_parameters())", "named_parameters=decoder.named_parameters())")],
         [(T_NET, "    encoder = torch.nn.Linear(4, 3)\n    decoder = torch.nn.Linear(3, 1)\n"
                  "    net = torch.nn.Sequential(encoder, decoder).to(device)\n")],
         crash="ValueError"),  # Horovod raises where it wraps (tried: encoder's parameters not named)
    Case("trained_submodule_not_broadcast", 6, TORCH,
         [(T_WRAP, T_WRAP + _CRITIC + "    critic_opt = hvd.DistributedOptimizer(critic_opt, "
                                      "named_parameters=critic.named_parameters())\n"),
          (T_STEP, T_STEP + _CRITIC_STEP)],
         [(T_WRAP, T_WRAP + _CRITIC + "    critic_opt = hvd.DistributedOptimizer(critic_opt, "
                                      "named_parameters=critic.named_parameters())\n"),
          (T_STEP, T_STEP + _CRITIC_STEP),
          (T_BCAST, T_BCAST + "    hvd.broadcast_parameters(critic.state_dict(), root_rank=0)\n")]),
    Case("misspelled_wrapper_keyword", 5, TF,
         [(F_TAPE, "            tape = hvd.DistributedGradientTape(tape, compresion=hvd.Compression.fp16)\n")],
         [(F_TAPE, "            tape = hvd.DistributedGradientTape(tape, compression=hvd.Compression.fp16)\n")],
         crash="TypeError"),
    Case("gradient_taken_before_wrapping", 5, TF, [(F_TAPE, ""), (F_GRADS, F_GRADS + F_TAPE)], []),
    Case("second_optimizer_left_unwrapped", 5, TORCH,
         [(T_WRAP, T_WRAP + _CRITIC), (T_STEP, T_STEP + _CRITIC_STEP),
          (T_BCAST, T_BCAST + "    hvd.broadcast_parameters(critic.state_dict(), root_rank=0)\n")],
         [(T_WRAP, T_WRAP + _CRITIC + "    critic_opt = hvd.DistributedOptimizer(critic_opt, "
                                      "named_parameters=critic.named_parameters())\n"),
          (T_STEP, T_STEP + _CRITIC_STEP),
          (T_BCAST, T_BCAST + "    hvd.broadcast_parameters(critic.state_dict(), root_rank=0)\n")]),
    Case("root_rank_is_own_rank", 6, TORCH, [("net.state_dict(), root_rank=0)", "net.state_dict(), "
                                                                                "root_rank=hvd.rank())")],
         []),
    Case("another_models_state_broadcast", 6, TORCH,
         [(T_NET, T_NET + "    teacher = torch.nn.Linear(4, 1)\n"),
          ("broadcast_parameters(net.state_dict()", "broadcast_parameters(teacher.state_dict()")],
         [(T_NET, T_NET + "    teacher = torch.nn.Linear(4, 1)\n")]),
    Case("broadcast_callback_reused_for_a_new_model", 6, KERAS,
         [(K_FIT, K_FIT + "second = new_model()\nsecond.fit(train, epochs=1, callbacks=callbacks)\n")],
         [(K_FIT, K_FIT + "second = new_model()\nsecond.fit(train, epochs=1, callbacks=[hvd.callbacks."
                          "BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()])\n")]),
    # --- code in classes ---------------------------------------------------------------------------------
    Case("trainer_methods_called_through_an_instance", 6, CLASSES,
         [("    def fit(self, loader, sampler, epochs, folder):\n        self.prepare()\n",
           "    def fit(self, loader, sampler, epochs, folder):\n")], []),
    # --- crashes: a finding of their own; a step whose code crashes elsewhere keeps its verdict, a step whose
    # own call crashes (the save, the Horovod call or what it is handed) is wrong too (issue 39) ---------------
    Case("name_never_defined", None, TORCH, [("default_rng(7)", "default_rng(SEED)")], [], crash="NameError"),
    Case("name_never_defined_in_the_save", 7, TORCH,
         [('os.path.join(opts.out, f"net', 'os.path.join(out_dir, f"net')], [], crash="NameError"),
    Case("argument_never_declared", None, TORCH,
         [(T_PRINT, '            print(f"epoch {epoch} mse {float(sums[0] / sums[1]):.5f}", opts.tag)\n')],
         [(T_PRINT, '            print(f"epoch {epoch} mse {float(sums[0] / sums[1]):.5f}", opts.tag)\n'),
          (T_ARGS, T_ARGS + '    cli.add_argument("--tag", default="")\n')], crash="AttributeError"),
    Case("argument_never_declared_in_the_wrap", 5, TORCH,
         [("named_parameters=net.named_parameters())", "named_parameters=net.named_parameters(),\n"
           "                               compression=hvd.Compression.fp16 if opts.fp16 else hvd.Compression.none)")],
         [("named_parameters=net.named_parameters())", "named_parameters=net.named_parameters(),\n"
           "                               compression=hvd.Compression.fp16 if opts.fp16 else hvd.Compression.none)"),
          (T_ARGS, T_ARGS + '    cli.add_argument("--fp16", action="store_true")\n')], crash="AttributeError"),
]


def apply(trainer, edits):
    with open(os.path.join(HERE, trainer)) as fh:
        text = fh.read()
    for old, new in edits:
        if text.count(old) != 1:
            raise ValueError(f"{trainer}: {old!r} occurs {text.count(old)} times, not once")
        text = text.replace(old, new)
    return text
