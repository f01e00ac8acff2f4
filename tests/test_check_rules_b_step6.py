"""`hvdkit check`, static pass, step 6 (every rank starts from rank 0's state) judged by what the code
computes (issue 39, class 3): a model is the object a call made, wherever a name holds it (`self.model` in a
Trainer is main's `model`); what a broadcast sends is a model's or an optimizer's state by the object it
comes from, not by the words in its name; a callback reaches fit through whatever names carry it; Horovod's
elastic run is known by what it is, however it is imported. Scripts written from scratch in the shape of
real trainers; each broken one is flagged on step 6, its correct twin is not. No framework is imported."""
from hvdkit.check import MISSING, OK, WRONG
from rules_b_scripts import finding


def _step6(tmp_path, src):
    return finding(tmp_path, src, 6)


TRAINER = '''
    import argparse

    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(32, 64), nn.ReLU())
            self.proj = nn.Linear(64, 16)

        def forward(self, x):
            return self.proj(self.body(x))


    class Trainer:
        """Contrastive pre-training with an auxiliary predictor."""

        def __init__(self, cfg, model):
            self.cfg, self.model = cfg, model
            self.predictor = nn.Linear(16, 16)
            params = [{{"params": self.model.parameters()}}, {{"params": self.predictor.parameters(), "lr": cfg["lr"]}}]
            opt = torch.optim.Adam(params, lr=cfg["lr"] * hvd.size())
            named = list(self.model.named_parameters()) + [("predictor." + n, p)
                                                           for n, p in self.predictor.named_parameters()]
            self.opt = hvd.DistributedOptimizer(opt, named_parameters=named)
    {sync}

        def run(self, loader, sampler):
            for epoch in range(self.cfg["epochs"]):
                sampler.set_epoch(epoch)
                for (x,) in loader:
                    z = self.model(x)
                    loss = F.mse_loss(self.predictor(z), z.detach())
                    self.opt.zero_grad()
                    loss.backward()
                    self.opt.step()
                if hvd.rank() == 0:
                    torch.save(self.model.state_dict(), "encoder.pt")


    def main():
        cfg = {{"lr": 1e-3, "epochs": 2}}
        hvd.init()
        torch.set_num_threads(1)
        data = TensorDataset(torch.randn(256, 32))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        model = Encoder()
    {main_sync}
        Trainer(cfg, model).run(DataLoader(data, batch_size=32, sampler=sampler), sampler)


    if __name__ == "__main__":
        main()
'''
BOTH = ("        hvd.broadcast_parameters(self.predictor.state_dict(), root_rank=0)\n"
        "            hvd.broadcast_optimizer_state(self.opt, root_rank=0)")  # `{sync}` indents the first line only
MAIN = "    hvd.broadcast_parameters(model.state_dict(), root_rank=0)"


def test_a_model_broadcast_under_another_name_is_covered(tmp_path):
    f = _step6(tmp_path, TRAINER.format(sync=BOTH, main_sync=MAIN))
    assert f.verdict == OK, f.evidence
    alone = TRAINER.format(sync="        hvd.broadcast_optimizer_state(self.opt, root_rank=0)", main_sync=MAIN)
    alone = alone.replace(', {"params": self.predictor.parameters(), "lr": cfg["lr"]}', "")
    assert '{"params": self.model.parameters()}]' in alone
    # Before: `self.model` (the Trainer's name for main's `model`) "is trained but no broadcast covers it".
    f = _step6(tmp_path, alone)
    assert f.verdict == OK, f.evidence


def test_a_trained_module_made_inside_the_trainer_must_be_broadcast_too(tmp_path):
    only_opt = "        hvd.broadcast_optimizer_state(self.opt, root_rank=0)"
    f = _step6(tmp_path, TRAINER.format(sync=only_opt, main_sync=MAIN))
    assert f.verdict == WRONG and "self.predictor" in f.evidence, f.evidence


def test_a_sub_module_broadcast_does_not_cover_the_whole_model(tmp_path):
    part = "    hvd.broadcast_parameters(model.body.state_dict(), root_rank=0)"
    # Before: any name rooted at `model` covered every part of it.
    f = _step6(tmp_path, TRAINER.format(sync=BOTH, main_sync=part))
    assert f.verdict == WRONG and "self.model" in f.evidence, f.evidence


TAPE = '''
    import tensorflow as tf
    import horovod.tensorflow as hvd


    def make_model(width):
        return tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(width, activation="relu"),
                                    tf.keras.layers.Dense(1)])


    def train(epochs=2, batch=64, base_lr=1e-3):
        hvd.init()
        net = make_model(32)
        solver = tf.keras.optimizers.Adam(base_lr * hvd.size())
        x = tf.random.normal((2048, 8))
        data = tf.data.Dataset.from_tensor_slices((x, tf.reduce_sum(x, 1, keepdims=True)))
        data = data.shard(hvd.size(), hvd.rank()).shuffle(256).batch(batch)
        for epoch in range(epochs):
            for i, (xb, yb) in enumerate(data):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(net(xb, training=True) - yb))
                tape = hvd.DistributedGradientTape(tape)
                grads = tape.gradient(loss, net.trainable_variables)
                solver.apply_gradients(zip(grads, net.trainable_variables))
                if epoch == 0 and i == 0:
    {sync}
            if hvd.rank() == 0:
                net.save_weights(f"net-{{epoch}}.weights.h5")


    if __name__ == "__main__":
        train()
'''


def test_an_optimizer_state_broadcast_alone_is_known_by_the_object(tmp_path):
    only = "                hvd.broadcast_variables(solver.variables, root_rank=0)"
    # Before: an argument without "opt" in its text was taken for the weights: ok.
    f = _step6(tmp_path, TAPE.format(sync=only))
    assert f.verdict == WRONG and "only the optimizer state" in f.evidence, f.evidence
    both = ("                hvd.broadcast_variables(net.variables, root_rank=0)\n"
            "                    hvd.broadcast_variables(solver.variables, root_rank=0)")
    assert _step6(tmp_path, TAPE.format(sync=both)).verdict == OK


def test_a_broadcast_value_is_the_weights_by_where_it_comes_from(tmp_path):
    settings = ("                model_cfg = hvd.broadcast_object({\"layers\": [32, 1]}, root_rank=0)\n"
                "                    print(model_cfg)")
    # Before: "layers" in what it sends made it a broadcast of the weights: ok.
    assert _step6(tmp_path, TAPE.format(sync=settings)).verdict == MISSING
    weights = ("                values = hvd.broadcast_object(net.get_weights(), root_rank=0)\n"
               "                    net.set_weights(values)")
    assert _step6(tmp_path, TAPE.format(sync=weights)).verdict == OK


KERAS = '''
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd


    def build_callbacks(out_dir):
        base = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
        if hvd.rank() == 0:
            return base + [tf.keras.callbacks.ModelCheckpoint(out_dir + "/ckpt-{{epoch}}.keras")]
        return base


    def main(out_dir="runs"):
        hvd.init()
        (x, y), _ = tf.keras.datasets.fashion_mnist.load_data()
        ds = tf.data.Dataset.from_tensor_slices((x[..., None] / 255.0, y)).shard(hvd.size(), hvd.rank()).batch(64)
        model = tf.keras.Sequential([tf.keras.Input((28, 28, 1)), tf.keras.layers.Flatten(),
                                     tf.keras.layers.Dense(10)])
        model.compile(optimizer=hvd.DistributedOptimizer(tf.keras.optimizers.Adam(1e-3 * hvd.size())),
                      loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        every = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
        logs = [tf.keras.callbacks.CSVLogger(out_dir + "/log.csv")] if hvd.rank() == 0 else []
        all_callbacks = {given}
        model.fit(ds, epochs=3, callbacks=all_callbacks, verbose=1 if hvd.rank() == 0 else 0)


    main()
'''


def test_callbacks_reach_fit_under_another_name(tmp_path):
    # Before: a list handed on under another name was "never passed to fit(callbacks=...)".
    assert _step6(tmp_path, KERAS.format(given="every + logs")).verdict == OK
    f = _step6(tmp_path, KERAS.format(given="logs"))
    assert f.verdict == WRONG and "never passed" in f.evidence, f.evidence


ELASTIC = '''
    import torch
    import horovod.torch as hvd
    from horovod.torch.elastic import TorchState, run as elastic_run

    hvd.init()
    model = torch.nn.Linear(8, 1)
    opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size()),
                                   named_parameters=model.named_parameters())
    x = torch.randn(1024, 8)[hvd.rank()::hvd.size()]


    @elastic_run
    def train(state):
        for state.epoch in range(state.epoch, 5):
            loss = model(x).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            state.commit()


    state = TorchState(model=model, optimizer=opt, epoch=0)
    train(state)
'''


def test_elastic_run_is_known_however_it_is_imported(tmp_path):
    # Before: only a decorator whose text read "elastic.run" counted: "no broadcast from rank 0".
    f = _step6(tmp_path, ELASTIC)
    assert f.verdict == OK, f.evidence


HEAD = '''
    import horovod.torch as hvd
    import torch
    import torch.nn.functional as F
    import torchvision


    def main(epochs=2):
        hvd.init()
        model = torchvision.models.resnet18(weights="IMAGENET1K_V1")
        model.fc = torch.nn.Linear(model.fc.in_features, 10)
        hvd.broadcast_parameters({sent}.state_dict(), root_rank=0)
        head = torch.optim.SGD({trained}.parameters(), lr=0.01 * hvd.size())
        head = hvd.DistributedOptimizer(head, named_parameters={trained}.named_parameters())
        for epoch in range(epochs):
            x, y = torch.randn(8, 3, 64, 64), torch.randint(0, 10, (8,))
            head.zero_grad()
            F.cross_entropy(model(x), y).backward()
            head.step()


    if __name__ == "__main__":
        main()
'''


def test_a_head_set_on_the_model_after_it_was_made_is_covered_by_the_models_broadcast(tmp_path):
    # Before: `model.fc` was the Linear that made it, not a part of what resnet18() made: "no broadcast covers it".
    f = _step6(tmp_path, HEAD.format(sent="model", trained="model.fc"))
    assert f.verdict == OK, f.evidence


def test_the_heads_broadcast_does_not_cover_the_model_it_was_set_on(tmp_path):
    f = _step6(tmp_path, HEAD.format(sent="model.fc", trained="model"))
    assert f.verdict == WRONG and "`model`" in f.evidence, f.evidence
