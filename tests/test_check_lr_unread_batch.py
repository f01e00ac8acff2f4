"""Step 4 where the data pipeline lives in a module that is not there: the script divides a number by
hvd.size() and hands it to the project's `make_dataset`, which makes the data the training draws from. If
that number is the batch, the global batch is fixed and the unscaled LR is right (each rank's mean loss over
global // size samples, averaged over the ranks, is the sequential batch's mean); the code that would say so
is not read, so the LR is "cannot tell", never "missing". The same script is missing the scaling when the
loss is divided by the whole global batch (tf.nn.compute_average_loss: the averaged gradient is then 1/size
of the sequential one), when the pipeline is handed the undivided batch, and when the divided number goes to
code that makes no data. With the module present, the batch is read and the fixed global batch judged ok.
A batch divided by a value of a module that is not there (`GLOBAL_BATCH // comm.size()` with the project's
`comm` helper absent) is "cannot tell" too; divided by a constant, the LR is missing its scaling.

Written from scratch for these tests, shaped as a repository's entry script with its own `pipeline` and
`config` packages."""
import textwrap

from hvdkit.check import MISSING, OK, UNKNOWN
from hvdkit.check.static import analyze

TRAIN = '''
    """Sea-ice segmentation.  horovodrun -np 8 python train.py --epochs 40"""
    import tensorflow as tf
    import keras
    import horovod.tensorflow as hvd

    from config import load_config
    from pipeline.data import make_dataset, make_schedule


    def main(cfg):
        hvd.init()
        share = {share}
        train_ds = make_dataset(cfg.train_glob, {batch}, hvd.rank(), hvd.size(), seed=cfg.seed)
        warmup = make_schedule({steps})
        model = keras.Sequential([keras.layers.Conv2D(8, 3, activation="relu"), keras.layers.GlobalAveragePooling2D(),
                                  keras.layers.Dense(2)])
        optimizer = keras.optimizers.Adam(learning_rate=cfg.lr)
        bce = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")
        it = iter(train_ds)
        for step in range(cfg.steps):
            x, y = next(it)
            with tf.GradientTape() as tape:
                per_sample = bce(y, model(x, training=True))
                loss = {loss}
            tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            if step == 0:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(optimizer.variables, root_rank=0)
            warmup.update(step)
        if hvd.rank() == 0:
            model.save(cfg.out_path)


    if __name__ == "__main__":
        main(load_config())
'''

DATA = '''
    import tensorflow as tf


    def make_dataset(pattern, batch, rank, size, seed=0):
        files = tf.data.Dataset.list_files(pattern, shuffle=False).shard(size, rank)
        ds = files.interleave(tf.data.TFRecordDataset).shuffle(4096, seed=seed)
        return ds.batch(batch, drop_remainder=True).repeat()


    class _Warmup:
        def __init__(self, steps):
            self.steps = steps

        def update(self, step):
            return min(1.0, (step + 1) / self.steps)


    def make_schedule(steps):
        return _Warmup(steps)
'''

MEAN = "tf.reduce_mean(per_sample)"
FIXED = dict(share="cfg.global_batch // hvd.size()", batch="share", steps="cfg.warmup_steps", loss=MEAN)


def step4(tmp_path, with_module=False, **parts):
    fill = dict(FIXED, **parts)
    text = TRAIN
    for key, value in fill.items():
        text = text.replace("{" + key + "}", value)
    (tmp_path / "train.py").write_text(textwrap.dedent(text).lstrip("\n"))
    (tmp_path / "setup.py").write_text("")
    if with_module:
        (tmp_path / "pipeline").mkdir()
        (tmp_path / "pipeline" / "__init__.py").write_text("")
        (tmp_path / "pipeline" / "data.py").write_text(textwrap.dedent(DATA).lstrip("\n"))
    findings, _, _ = analyze(str(tmp_path / "train.py"))
    return findings[4]


def test_a_share_of_the_global_batch_handed_to_an_absent_pipeline_cannot_be_told(tmp_path):
    f = step4(tmp_path)
    assert f.verdict == UNKNOWN and "make_dataset" in f.evidence and "share" in f.evidence, f


def test_read_in_the_project_the_fixed_global_batch_keeps_the_lr(tmp_path):
    f = step4(tmp_path, with_module=True)
    assert f.verdict == OK and "global batch is fixed" in f.evidence, f


def test_a_loss_over_the_whole_global_batch_still_needs_the_scaling(tmp_path):
    f = step4(tmp_path, loss="tf.nn.compute_average_loss(per_sample, global_batch_size=cfg.global_batch)")
    assert f.verdict == MISSING, f


def test_the_undivided_batch_handed_to_the_pipeline_is_missing_the_scaling(tmp_path):
    f = step4(tmp_path, share="cfg.batch", batch="cfg.batch")
    assert f.verdict == MISSING, f


def test_a_share_handed_to_code_that_makes_no_data_is_missing_the_scaling(tmp_path):
    f = step4(tmp_path, share="cfg.batch", batch="cfg.batch", steps="cfg.warmup_steps // hvd.size()")
    assert f.verdict == MISSING, f


DIVIDED_BY_HELPER = '''
    """Cosmology regression.  mpirun -n 8 python train.py"""
    import torch
    from torch.utils.data import DataLoader, TensorDataset
    import horovod.torch as hvd

    from cosmokit import comm
    from cosmokit.config import GLOBAL_BATCH

    hvd.init()
    torch.set_num_threads(1)
    ds = TensorDataset(torch.randn(4096, 32), torch.randn(4096, 4))
    local_batch = GLOBAL_BATCH // {divisor}
    sampler = torch.utils.data.distributed.DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank())
    loader = DataLoader(ds, batch_size=local_batch, sampler=sampler)
    model = torch.nn.Linear(32, 4)
    opt = hvd.DistributedOptimizer(torch.optim.Adam(model.parameters(), lr=1e-3),
                                   named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    for x, y in loader:
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
'''


def test_a_batch_divided_by_an_absent_helpers_size_cannot_be_told(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(DIVIDED_BY_HELPER.replace("{divisor}", "comm.size()")).lstrip("\n"))
    f = analyze(str(path))[0][4]
    assert f.verdict == UNKNOWN and "comm.size()" in f.evidence, f


def test_a_batch_divided_by_a_constant_is_missing_the_scaling(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(DIVIDED_BY_HELPER.replace("{divisor}", "4")).lstrip("\n"))
    assert analyze(str(path))[0][4].verdict == MISSING


def test_a_share_divided_by_an_absent_objects_size_handed_to_an_absent_pipeline_cannot_be_told(tmp_path):
    """`dist = init_workers()` of a module that is not there, then `cfg.global_batch // dist.size` handed to
    the absent pipeline: the divisor may be the number of ranks, and that code makes the batches."""
    text = TRAIN
    for key, value in dict(FIXED, share="cfg.global_batch // dist.size").items():
        text = text.replace("{" + key + "}", value)
    text = text.replace("        hvd.init()\n", "        hvd.init()\n        dist = init_workers()\n")
    text = text.replace("from config import load_config\n",
                        "from config import load_config\n    from pipeline.setup import init_workers\n")
    (tmp_path / "train.py").write_text(textwrap.dedent(text).lstrip("\n"))
    f = analyze(str(tmp_path / "train.py"))[0][4]
    assert f.verdict == UNKNOWN and "make_dataset" in f.evidence and "share" in f.evidence, f
    # divided by a number the script fixes, the LR is missing its scaling
    (tmp_path / "train.py").write_text(textwrap.dedent(text.replace("// dist.size", "// 4")).lstrip("\n"))
    assert analyze(str(tmp_path / "train.py"))[0][4].verdict == MISSING
