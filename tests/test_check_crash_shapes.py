"""Crash finding: a reshape whose shape is read from the tensor's own values (`y[0]` where `y.shape[0]` was
meant) raises when it runs (tried: InvalidArgumentError in TensorFlow, TypeError / RuntimeError in torch),
unless a value happens to equal the element count. Sizes (`y.shape[0]`, `y.size(0)`, `len(y)`) never count.

Written from scratch for these tests: a TF 2 tape loop, flat, and a PyTorch project whose reshape is in a
module of its own (crash_shapes.py reads every module whose code runs)."""
import textwrap

from hvdkit.check.static import analyze

TF_SCRIPT = '''
    """Tabular regressor.  horovodrun -np 4 python train.py"""
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    hvd.init()
    x = np.random.rand(4096, 16).astype("float32")[hvd.rank()::hvd.size()]
    y = np.random.rand(4096).astype("float32")[hvd.rank()::hvd.size()]
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(64)
    model = tf.keras.Sequential([tf.keras.layers.Dense(32, activation="relu"), tf.keras.layers.Dense(1)])
    opt = tf.keras.optimizers.Adam(learning_rate=1e-3 * hvd.size())


    @tf.function
    def train_step(xb, yb, first):
        yb = tf.reshape(yb, {shape})
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(xb, training=True) - yb))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss


    for epoch in range(5):
        for step, (xb, yb) in enumerate(ds):
            loss = train_step(xb, yb, epoch == 0 and step == 0)
        loss = hvd.allreduce(loss)
        if hvd.rank() == 0:
            print(epoch, float(loss))
            model.save("regressor.keras")
'''

TORCH_TRAIN = '''
    """Ranking model.  horovodrun -np 4 python train.py"""
    import torch
    import horovod.torch as hvd

    from ranker.loop import fit
    from ranker.model import Scorer


    def main():
        hvd.init()
        data = torch.utils.data.TensorDataset(torch.randn(2048, 8), torch.randint(0, 5, (2048,)).float())
        sampler = torch.utils.data.distributed.DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = torch.utils.data.DataLoader(data, batch_size=32, sampler=sampler)
        model = Scorer()
        opt = torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        fit(model, opt, loader, sampler)


    if __name__ == "__main__":
        main()
'''

TORCH_LOOP = '''
    import torch
    import horovod.torch as hvd


    def fit(model, opt, loader, sampler, epochs=3):
        for epoch in range(epochs):
            sampler.set_epoch(epoch)
            total, count = torch.zeros(()), torch.zeros(())
            for x, y in loader:
                target = {target}
                loss = torch.nn.functional.mse_loss(model(x), target)
                opt.zero_grad()
                loss.backward()
                opt.step()
                total += loss.detach() * len(x)
                count += len(x)
            mean = hvd.allreduce(total, op=hvd.Sum) / hvd.allreduce(count, op=hvd.Sum)
            if hvd.rank() == 0:
                print(epoch, float(mean))
                torch.save(model.state_dict(), "ranker.pt")
'''

TORCH_MODEL = '''
    import torch


    class Scorer(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))

        def forward(self, x):
            return self.net(x)
'''


def check_tf(tmp_path, shape):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(TF_SCRIPT.replace("{shape}", shape)).lstrip("\n"))
    return analyze(str(path))[2]["crash"]


def check_torch(tmp_path, target):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'ranker'\n")
    pkg = tmp_path / "ranker"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "loop.py").write_text(textwrap.dedent(TORCH_LOOP.replace("{target}", target)).lstrip("\n"))
    (pkg / "model.py").write_text(textwrap.dedent(TORCH_MODEL).lstrip("\n"))
    (tmp_path / "train.py").write_text(textwrap.dedent(TORCH_TRAIN).lstrip("\n"))
    return analyze(str(tmp_path / "train.py"))[2]["crash"]


def test_a_tf_reshape_to_the_first_label_crashes(tmp_path):
    crash = check_tf(tmp_path, "(yb[0], 1)")
    line = next(i for i, ln in enumerate((tmp_path / "train.py").read_text().splitlines(), 1) if "tf.reshape" in ln)
    assert crash and crash["line"] == line and crash["error"].startswith("InvalidArgumentError"), crash
    assert "yb[0]" in crash["error"] and "yb.shape[0]" in crash["why"], crash


def test_a_tf_reshape_to_the_batch_size_is_fine(tmp_path):
    assert check_tf(tmp_path, "(tf.shape(yb)[0], 1)") is None
    assert check_tf(tmp_path, "(yb.shape[0], 1)") is None
    assert check_tf(tmp_path, "(-1, 1)") is None


def test_a_view_to_a_label_value_in_a_project_module_crashes(tmp_path):
    crash = check_torch(tmp_path, "y.view(y[0], 1)")
    assert crash and crash["file"] == "ranker/loop.py" and crash["error"].startswith("RuntimeError"), crash


def test_a_view_to_the_batch_size_is_fine(tmp_path):
    assert check_torch(tmp_path, "y.view(y.size(0), 1)") is None
    assert check_torch(tmp_path, "y.view(len(y), 1)") is None
    assert check_torch(tmp_path, "torch.reshape(y, (x[0].numel() * 0 + len(y), 1))") is None
