"""One run of a script, though several functions its top level calls:

- a subclassed Keras model built by the first `step_fn(x, y)` of the module's loop, then broadcast by a
  project helper `sync_state(model, opt)` the same loop calls after it: the broadcast has variables to
  send (step 6 ok); called before the first step, it sends none (wrong);
- `trainer.best_auc` read after `trainer.fit()` is what fit() set as `self.best_auc`: a report of rank 0's
  evaluation of the whole validation split, not rank 0's shard (step 8 ok); a report of the last training
  loss of rank 0's shard is not averaged (missing).

Written from scratch for these tests: a TF recommender (`recs/`) and a torch MIL trainer (`milkit/`)."""
from crash_scripts import Source, check_project
from hvdkit.check import MISSING, OK, WRONG

RECS_TRAIN = Source('''
    """Click-through model.  horovodrun -np 4 python train.py"""
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    from recs.dist import setup, sync_state
    from recs.model import Ranker

    setup()
    x = np.random.rand(8192, 24).astype("float32")
    y = (np.random.rand(8192, 1) > 0.8).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).batch(256)
    model = Ranker()
    opt = tf.keras.optimizers.Adam(1e-3 * hvd.size())
    bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)


    @tf.function
    def step_fn(xb, yb):
        with tf.GradientTape() as tape:
            loss = bce(yb, model(xb, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss


    for epoch in range(5):
        for i, (xb, yb) in enumerate(ds):
            BODY
        mean = hvd.allreduce(loss)
        if hvd.rank() == 0:
            print(epoch, float(mean))
            model.save_weights(f"ckpt/ranker-{epoch}.weights.h5")
''')

RECS_DIST = '''
    import tensorflow as tf
    import horovod.tensorflow as hvd


    def setup():
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


    def sync_state(model, optimizer):
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables, root_rank=0)
'''

RECS_MODEL = '''
    import tensorflow as tf


    class Ranker(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = tf.keras.layers.Dense(64, activation="relu")
            self.out = tf.keras.layers.Dense(1)

        def call(self, x, training=False):
            return self.out(self.hidden(x))
'''


def recs(tmp_path, body):
    files = {"train.py": RECS_TRAIN.replace("BODY", body), "recs/__init__.py": "", "recs/dist.py": RECS_DIST,
             "recs/model.py": RECS_MODEL}
    return check_project(tmp_path, files)[2][6]


def test_a_broadcast_helper_after_the_first_step_has_variables_to_send(tmp_path):
    f6 = recs(tmp_path, """loss = step_fn(xb, yb)
            if epoch == 0 and i == 0:
                sync_state(model, opt)""")
    assert f6.verdict == OK, f6


def test_the_same_helper_before_the_first_step_sends_nothing(tmp_path):
    f6 = recs(tmp_path, """if epoch == 0 and i == 0:
                sync_state(model, opt)
            loss = step_fn(xb, yb)""")
    assert f6.verdict == WRONG and "before it has any" in f6.evidence, f6


MIL_TRAIN = Source('''
    """Slide-level MIL.  horovodrun -np 4 python train_mil.py"""
    import torch
    import horovod.torch as hvd

    from milkit.data import full_loader, rank_loader
    from milkit.trainer import Trainer


    def main():
        hvd.init()
        torch.set_num_threads(1)
        bags = torch.utils.data.TensorDataset(torch.randn(512, 16, 32), torch.randint(0, 2, (512,)))
        val = torch.utils.data.TensorDataset(torch.randn(128, 16, 32), torch.randint(0, 2, (128,)))
        train_loader = rank_loader(bags, 8, hvd.rank(), hvd.size())
        val_loader = full_loader(val) if hvd.rank() == 0 else None
        model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(16 * 32, 2))
        trainer = Trainer(model, lr=1e-3 * hvd.size())
        trainer.fit(train_loader, val_loader, epochs=20)
        if hvd.rank() == 0:
            print(f"REPORT")


    if __name__ == "__main__":
        main()
''')

MIL_DATA = '''
    import torch


    def rank_loader(ds, batch_size, rank, world):
        idx = list(range(rank, len(ds), world))
        return torch.utils.data.DataLoader(torch.utils.data.Subset(ds, idx), batch_size=batch_size, shuffle=True)


    def full_loader(ds):
        return torch.utils.data.DataLoader(ds, batch_size=16)
'''

MIL_TRAINER = '''
    import torch
    import horovod.torch as hvd


    class Trainer:
        def __init__(self, model, lr):
            self.model = model
            opt = torch.optim.Adam(model.parameters(), lr=lr)
            self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
            hvd.broadcast_parameters(model.state_dict(), root_rank=0)
            hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)
            self.best_acc, self.last_loss = -1.0, None

        @torch.no_grad()
        def evaluate(self, loader):
            hits = total = 0
            for x, y in loader:
                hits += (self.model(x).argmax(1) == y).sum().item()
                total += len(y)
            return hits / total

        def fit(self, train_loader, val_loader, epochs):
            for epoch in range(epochs):
                for x, y in train_loader:
                    self.optimizer.zero_grad()
                    loss = torch.nn.functional.cross_entropy(self.model(x), y)
                    loss.backward()
                    self.optimizer.step()
                self.last_loss = loss.item()
                if hvd.rank() == 0:
                    acc = self.evaluate(val_loader)
                    if acc > self.best_acc:
                        self.best_acc, stale = acc, 0
                        torch.save(self.model.state_dict(), "best.pt")
'''


def mil(tmp_path, report):
    files = {"train_mil.py": MIL_TRAIN.replace("REPORT", report), "milkit/__init__.py": "",
             "milkit/data.py": MIL_DATA, "milkit/trainer.py": MIL_TRAINER}
    return check_project(tmp_path, files, "train_mil.py")[2][8]


def test_the_best_accuracy_a_trainer_kept_is_rank_0s_whole_evaluation(tmp_path):
    f8 = mil(tmp_path, "best val accuracy {trainer.best_acc:.4f}")
    assert f8.verdict == OK, f8


def test_the_last_training_loss_it_kept_is_rank_0s_shard(tmp_path):
    f8 = mil(tmp_path, "last train loss {trainer.last_loss:.4f}")
    assert f8.verdict == MISSING, f8
