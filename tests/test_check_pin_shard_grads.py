"""`hvdkit check`, static pass, on steps 2, 3 and 5 as held-out scripts showed them: the launchers'
local-rank variables pin a GPU, a pin's fix is in the script's framework, shard()'s arguments in their
order, Horovod's ElasticSampler, per-rank data files read with torch.load, random noise in a step over real
data, gradients averaged by hand whatever their names (accumulated into variables too), and every GPU
hidden (a CPU run). Each broken script is flagged on its step only, its correct twin on none. The
scripts are the class-case trainers (tests/check_cases) with a few explicit edits."""
import os
import sys

from hvdkit.check import FLAGGED, OK
from hvdkit.check.static import analyze

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "check_cases"))
import cases  # noqa: E402 - the trainers and apply() live beside the class cases

TF_PIN = ('    gpus = tf.config.list_physical_devices("GPU")\n    if gpus:\n'
          '        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")\n')


def _check(tmp_path, trainer, edits, name):
    path = tmp_path / f"{name}.py"
    path.write_text(cases.apply(trainer, edits))
    findings, _, _ = analyze(str(path))
    return findings, {n: f for n, f in findings.items() if f.verdict in FLAGGED}


def _broken(tmp_path, trainer, edits, step):
    findings, flagged = _check(tmp_path, trainer, edits, "broken")
    assert list(flagged) == [step], {n: f.evidence for n, f in flagged.items()}
    return flagged[step]


def _correct(tmp_path, trainer, edits):
    findings, flagged = _check(tmp_path, trainer, edits, "correct")
    assert flagged == {}, {n: f.evidence for n, f in flagged.items()}
    return findings


# --- step 2: pinning ---------------------------------------------------------------------------------------
def _env_pin(variable):
    return [(TF_PIN, f'    local = os.environ.get("{variable}") or os.getenv("SLURM_LOCALID") or "0"\n'
                     '    os.environ["CUDA_VISIBLE_DEVICES"] = local\n')]


def test_gpu_chosen_by_the_launchers_local_rank_variable(tmp_path):
    """CUDA_VISIBLE_DEVICES from OMPI_COMM_WORLD_LOCAL_RANK is the local rank's GPU; from
    OMPI_COMM_WORLD_RANK it is the global rank's (GPU 4 asked for on a 4-GPU node)."""
    bad = _broken(tmp_path, cases.TF, [(TF_PIN, '    rank = int(os.environ["OMPI_COMM_WORLD_RANK"])\n'
                                                '    os.environ["CUDA_VISIBLE_DEVICES"] = str(rank)\n')], 2)
    assert "global rank" in bad.evidence
    findings = _correct(tmp_path, cases.TF, _env_pin("OMPI_COMM_WORLD_LOCAL_RANK"))
    assert findings[2].verdict == OK and "local rank" in findings[2].evidence


def test_every_gpu_hidden_is_a_cpu_run(tmp_path):
    """set_visible_devices([], "GPU") or CUDA_VISIBLE_DEVICES "" / "-1" hides every GPU: nothing to pin. A
    constant GPU id is the same GPU on every rank."""
    bad = _broken(tmp_path, cases.TF, [(TF_PIN, '    os.environ["CUDA_VISIBLE_DEVICES"] = "0"\n')], 2)
    assert "same GPU" in bad.evidence
    for hidden in ('    tf.config.set_visible_devices([], "GPU")\n', '    os.environ["CUDA_VISIBLE_DEVICES"] = ""\n',
                   '    os.environ["CUDA_VISIBLE_DEVICES"] = "-1"\n',
                   '    tf.config.set_visible_devices(devices=[], device_type="GPU")\n'):
        findings = _correct(tmp_path, cases.TF, [(TF_PIN, hidden)])
        assert "GPUs hidden" in findings[2].evidence


def test_pin_fix_is_in_the_scripts_framework(tmp_path):
    """A TensorFlow script is told tf.config.set_visible_devices, a PyTorch one torch.cuda.set_device."""
    tf_bad = _broken(tmp_path, cases.TF, [("gpus[hvd.local_rank()]", "gpus[hvd.rank()]")], 2)
    assert tf_bad.fix.startswith("select the GPU with hvd.local_rank(), e.g. tf.config.set_visible_devices(")
    assert "torch" not in tf_bad.fix
    torch_bad = _broken(tmp_path, cases.TORCH, [("set_device(hvd.local_rank())", "set_device(hvd.rank())")], 2)
    assert "torch.cuda.set_device(hvd.local_rank())" in torch_bad.fix and "tf.config" not in torch_bad.fix
    missing = _broken(tmp_path, cases.TF, [(TF_PIN, ""), ("    tf.config.threading.set_intra_op_parallelism_"
                                                          "threads(1)\n", "")], 2)
    assert missing.fix.startswith("tf.config.set_visible_devices(") and "torch" not in missing.fix
    _correct(tmp_path, cases.TF, [])
    _correct(tmp_path, cases.TORCH, [])


# --- step 3: sharding --------------------------------------------------------------------------------------
F_SHARD = "    data = data.shard(hvd.size(), hvd.rank()).shuffle(256).batch(BATCH)\n"
T_SAMPLER = ("    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), "
             "shuffle=True)\n")
T_DATA = "    train_set = build_data(opts.samples)\n"


def test_shard_given_rank_and_size_in_the_wrong_order(tmp_path):
    """tf.data's shard(num_shards, index): shard(hvd.rank(), hvd.size()) raises on every rank."""
    for swapped in ("data.shard(hvd.rank(), hvd.size())", "data.shard(num_shards=hvd.rank(), index=hvd.size())"):
        bad = _broken(tmp_path, cases.TF, [(F_SHARD, F_SHARD.replace("data.shard(hvd.size(), hvd.rank())", swapped))],
                      3)
        assert "number of shards" in bad.evidence and "hvd.size(), hvd.rank()" in bad.fix
    _correct(tmp_path, cases.TF, [(F_SHARD, F_SHARD.replace("shard(hvd.size(), hvd.rank())",
                                                            "shard(index=hvd.rank(), num_shards=hvd.size())"))])


def test_horovods_elastic_sampler_is_a_partition(tmp_path):
    """hvd.elastic.ElasticSampler(ds) reads rank and size itself; made and not given to the loader, it is not."""
    elastic = "    train_sampler = hvd.elastic.ElasticSampler(train_set, shuffle=True)\n"
    _broken(tmp_path, cases.TORCH, [(T_SAMPLER, elastic), ("sampler=train_sampler)", "shuffle=True)")], 3)
    _correct(tmp_path, cases.TORCH, [(T_SAMPLER, elastic)])


def test_per_rank_file_read_by_torch_load_is_data_or_checkpoint_by_its_use(tmp_path):
    """torch.load(f"train-{rank}.pt") feeding a Dataset is this rank's part; torch.load(f"net-{rank}.pt")
    given to load_state_dict is a checkpoint, and the data stays unsharded."""
    no_sampler = [(T_SAMPLER, ""), ("sampler=train_sampler)", "shuffle=True)"),
                  ("        train_sampler.set_epoch(epoch)\n", "")]
    ckpt = [("    sgd = torch.optim", '    net.load_state_dict(torch.load(f"net-{hvd.rank()}.pt"))\n'
                                     "    sgd = torch.optim")]
    _broken(tmp_path, cases.TORCH, no_sampler + ckpt, 3)
    _correct(tmp_path, cases.TORCH, no_sampler + [(T_DATA, '    tensors = torch.load(f"train-{hvd.rank():03d}.pt")\n'
                                                           "    train_set = TensorDataset(*tensors)\n")])


F_LOSS = "                loss = xent(y, clf(x, training=True))\n"
F_NOISE = "                loss = xent(y, clf(x + 0.01 * tf.random.normal([BATCH, 6]), training=True))\n"


def test_random_noise_in_a_step_over_real_data_is_not_synthetic_data(tmp_path):
    """A random tensor shaped by the batch inside the loop over a data set is noise (augmentation, a GAN's
    latent vector), not the data: the unsharded data set is still read whole by every rank. The same tensor
    fed by a loop over range() is the data of a synthetic benchmark: nothing to shard."""
    unsharded = (F_SHARD, "    data = data.shuffle(256).batch(BATCH)\n")
    bad = _broken(tmp_path, cases.TF, [unsharded, (F_LOSS, F_NOISE)], 3)
    assert bad.verdict == "missing"
    _correct(tmp_path, cases.TF, [(F_LOSS, F_NOISE)])
    synthetic = _correct(tmp_path, cases.TF, [unsharded, (F_LOSS, F_NOISE.replace("x + 0.01 * ", "")),
                                              ("        for x, y in data:\n", "        for y in range(16):\n")])
    assert synthetic[3].verdict == "cannot tell" and "synthetic" in synthetic[3].evidence


# --- step 5: gradients averaged by hand --------------------------------------------------------------------
F_TAPE = "            tape = hvd.DistributedGradientTape(tape)\n"
F_GRADS = "            grads = tape.gradient(loss, clf.trainable_variables)\n"


def _by_hand(averaging):
    return [(F_TAPE, ""), (F_GRADS, F_GRADS + averaging)]


def test_gradients_averaged_by_hand_whatever_their_names(tmp_path):
    """An allreduce given the tape's gradients (a comprehension or loop over them, or map) averages them."""
    for averaging in ("            grads = [hvd.allreduce(g, op=hvd.Average) for g in grads]\n",
                      "            avg = []\n            for t in grads:\n"
                      "                avg.append(hvd.allreduce(t))\n            grads = avg\n",
                      "            grads = list(map(hvd.allreduce, grads))\n"):
        findings = _correct(tmp_path, cases.TF, _by_hand(averaging))
        assert findings[5].verdict == OK


def test_gradients_summed_by_hand(tmp_path):
    """op=hvd.Sum on the gradients is a sum (hvd.size() times the step) unless divided by hvd.size()."""
    bad = _broken(tmp_path, cases.TF, _by_hand("            grads = [hvd.allreduce(grad, op=hvd.Sum) for grad in "
                                               "grads]\n"), 5)
    assert "summed" in bad.evidence
    _correct(tmp_path, cases.TF, _by_hand("            grads = [hvd.allreduce(grad, op=hvd.Sum) / hvd.size() for "
                                          "grad in grads]\n"))


F_APPLY = "            adam.apply_gradients(zip(grads, clf.trainable_variables))\n"
F_ACCUM = ("    accum = [tf.Variable(tf.zeros_like(v), trainable=False) for v in clf.trainable_variables]\n"
           "    ckpt = tf.train.Checkpoint(")


def _accumulated(averaging):
    """Gradients added into variables on every batch, and the optimizer stepped with them every second."""
    return [(F_TAPE, ""), ("    ckpt = tf.train.Checkpoint(", F_ACCUM),
            (F_APPLY, "            for a, g in zip(accum, grads):\n                a.assign_add(g)\n"
                      "            if step % 2 == 1:\n"
                      f"                summed = [{averaging} for t in accum]\n"
                      "                adam.apply_gradients(zip(summed, clf.trainable_variables))\n"
                      "                for a in accum:\n                    a.assign(tf.zeros_like(a))\n")]


def test_gradients_accumulated_then_averaged(tmp_path):
    """Variables that gradients are added into hold gradients: allreducing them averages the gradients;
    stepping with them unreduced is each rank's own step."""
    bad = _broken(tmp_path, cases.TF, _accumulated("tf.identity(t)"), 5)
    assert bad.verdict == "missing"
    findings = _correct(tmp_path, cases.TF, _accumulated("hvd.allreduce(t, op=hvd.Average)"))
    assert "accum" in findings[5].evidence


def test_pytorch_script_that_uses_no_gpu_has_nothing_to_pin(tmp_path):
    """No cuda device, .cuda() or GPU query anywhere: the PyTorch script runs on the CPU; put the model on
    the GPU without pinning one and every rank is on GPU 0."""
    cpu = [("    torch.set_num_threads(1)\n    if torch.cuda.is_available():\n"
            "        torch.cuda.set_device(hvd.local_rank())\n", ""),
           ('    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n', ""),
           ("            inputs, targets = inputs.to(device), targets.to(device)\n", "")]
    net = "    net = torch.nn.Linear(4, 1).to(device)\n"
    bad = _broken(tmp_path, cases.TORCH, cpu + [(net, "    net = torch.nn.Linear(4, 1).cuda()\n")], 2)
    assert bad.verdict == "missing"
    findings = _correct(tmp_path, cases.TORCH, cpu + [(net, "    net = torch.nn.Linear(4, 1)\n")])
    assert "uses no GPU" in findings[2].evidence
