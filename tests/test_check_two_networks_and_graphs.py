"""GAN and graph-network training judged by what the code computes (issue 39, classes 3 and 4), and two crashes
certain from Horovod's own checks (class 5).

- A critic's inner loop (`for _ in range(n_critic)`) whose fake batch is made under `torch.no_grad()` sends no
  gradient into the generator: no accumulation under the generator's DistributedOptimizer, no crash. The same
  loop with the fake batch not cut from the graph reaches the generator n_critic times: AssertionError.
- A Trainer that broadcasts every network its `nets()` method returns covers them all; one whose dict leaves out
  a discriminator does not.
- A sum built as `mu = x if mu is None else mu + x` over a loop is an accumulation, not the last batch's value.
- Weights drawn again after the broadcast (`model.apply(init_fn)` calling `reset_parameters`) under per-rank
  seeds: the replicas start apart. Initialised before the broadcast: right.
- Full-batch training over this rank's index part, converted (`torch.from_numpy(np.array_split(idx, size)[rank])
  .long()`): the global batch is the whole training set, the unscaled LR is right; with mini-batches drawn from
  that part it is not.
- A fine-tuning phase that loads the whole state of one file on every rank starts alike; a partial load
  (`strict=False`) leaves the new head to each rank's own draw.
- `op=hvd.Sum` with `gradient_predivide_factor=hvd.size()`: Horovod raises ValueError when it wraps.
- Embedding tables written in row shards, each rank the shards `range(hvd.rank(), n, hvd.size())` picks: no
  file written twice. Every rank writing every shard: they collide.
- A Keras model class that keeps its variables in lists of its own (`model.dense_vars`) is a model: its
  weights saved with np.savez are a checkpoint.

Written from scratch for these tests."""
from crash_scripts import Source, check_project, line_of

CRITIC = Source('''
    """horovodrun -np 2 python wgan.py"""
    import torch
    import horovod.torch as hvd

    hvd.init()
    torch.manual_seed(7)
    n_critic = 5
    G = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
    D = torch.nn.Sequential(torch.nn.Linear(4, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-4 * hvd.size(), betas=(0.0, 0.9))
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-4 * hvd.size(), betas=(0.0, 0.9))
    opt_g = hvd.DistributedOptimizer(opt_g, named_parameters=G.named_parameters())
    opt_d = hvd.DistributedOptimizer(opt_d, named_parameters=D.named_parameters())
    hvd.broadcast_parameters(G.state_dict(), root_rank=0)
    hvd.broadcast_parameters(D.state_dict(), root_rank=0)
    data = torch.randn(8192, 4)[hvd.rank()::hvd.size()]
    for it in range(1000):
        for _ in range(n_critic):
            real = data[torch.randint(0, len(data), (64,))]
            with torch.no_grad():
                fake = G(torch.randn(64, 16))
            loss_d = D(fake).mean() - D(real).mean()
            opt_d.zero_grad()
            loss_d.backward()
            opt_d.step()
        loss_g = -D(G(torch.randn(64, 16))).mean()
        opt_g.zero_grad()
        loss_g.backward()
        opt_g.step()
        if it % 100 == 0:
            both = hvd.allreduce(torch.stack([loss_d.detach(), loss_g.detach()]), name="losses")
            if hvd.rank() == 0:
                print(it, both.tolist())
                torch.save({"G": G.state_dict(), "D": D.state_dict()}, "wgan.pt")
''')


def test_a_critic_loop_on_a_fake_batch_made_without_gradients_accumulates_nothing(tmp_path):
    crash, flagged, _ = check_project(tmp_path, {"wgan.py": CRITIC}, script="wgan.py")
    assert crash is None and flagged == {}, (crash, flagged)


def test_a_critic_loop_whose_fake_batch_reaches_the_generator_crashes_at_its_second_pass(tmp_path):
    wgan = CRITIC.replace("            with torch.no_grad():\n                fake = G(torch.randn(64, 16))",
                          "            fake = G(torch.randn(64, 16))")
    crash, flagged, _ = check_project(tmp_path, {"wgan.py": wgan}, script="wgan.py")
    assert crash is not None and crash["error"].startswith("AssertionError"), crash


CYCLE_TRAIN = Source('''
    """horovodrun -np 4 python train.py"""
    import torch
    import horovod.torch as hvd

    from cyc.engine import CycleModel

    hvd.init()
    model = CycleModel(lr=2e-4 * hvd.size())
    model.broadcast()
    a = torch.randn(1024, 8)[hvd.rank()::hvd.size()]
    b = torch.randn(1024, 8)[hvd.rank()::hvd.size()]
    for epoch in range(5):
        for xa, xb in zip(a.split(32), b.split(32)):
            model.step(xa, xb)
        if hvd.rank() == 0:
            model.save("cycle.pt")
''')

CYCLE_ENGINE = Source('''
    import itertools

    import torch
    import horovod.torch as hvd


    def net():
        return torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8))


    class CycleModel:
        def __init__(self, lr):
            self.G_ab, self.G_ba = net(), net()
            self.D_a, self.D_b = net(), net()
            g = itertools.chain(self.G_ab.parameters(), self.G_ba.parameters())
            d = itertools.chain(self.D_a.parameters(), self.D_b.parameters())
            g_named = [("G_ab." + n, p) for n, p in self.G_ab.named_parameters()] + \\
                [("G_ba." + n, p) for n, p in self.G_ba.named_parameters()]
            d_named = [("D_a." + n, p) for n, p in self.D_a.named_parameters()] + \\
                [("D_b." + n, p) for n, p in self.D_b.named_parameters()]
            self.opt_g = hvd.DistributedOptimizer(torch.optim.Adam(g, lr=lr), named_parameters=g_named)
            self.opt_d = hvd.DistributedOptimizer(torch.optim.Adam(d, lr=lr), named_parameters=d_named)

        def nets(self):
            return {"G_ab": self.G_ab, "G_ba": self.G_ba, "D_a": self.D_a, "D_b": self.D_b}

        def broadcast(self):
            for name, module in self.nets().items():
                hvd.broadcast_parameters(module.state_dict(), root_rank=0)
            hvd.broadcast_optimizer_state(self.opt_g, root_rank=0)
            hvd.broadcast_optimizer_state(self.opt_d, root_rank=0)

        def step(self, a, b):
            for p in itertools.chain(self.D_a.parameters(), self.D_b.parameters()):
                p.requires_grad = False
            fake_b, fake_a = self.G_ab(a), self.G_ba(b)
            loss_g = (self.D_b(fake_b) - 1).pow(2).mean() + (self.D_a(fake_a) - 1).pow(2).mean() + \\
                (self.G_ba(fake_b) - a).abs().mean() + (self.G_ab(fake_a) - b).abs().mean()
            self.opt_g.zero_grad()
            loss_g.backward()
            self.opt_g.step()
            for p in itertools.chain(self.D_a.parameters(), self.D_b.parameters()):
                p.requires_grad = True
            loss_d = (self.D_a(a) - 1).pow(2).mean() + self.D_a(fake_a.detach()).pow(2).mean() + \\
                (self.D_b(b) - 1).pow(2).mean() + self.D_b(fake_b.detach()).pow(2).mean()
            self.opt_d.zero_grad()
            loss_d.backward()
            self.opt_d.step()

        def save(self, path):
            torch.save({k: v.state_dict() for k, v in self.nets().items()}, path)
''')


def _cycle(tmp_path, engine=CYCLE_ENGINE):
    return check_project(tmp_path, {"train.py": CYCLE_TRAIN, "cyc/__init__.py": "", "cyc/engine.py": engine})


def test_a_broadcast_over_the_networks_a_method_returns_covers_them_all(tmp_path):
    crash, flagged, findings = _cycle(tmp_path)
    assert crash is None and flagged == {}, (flagged, findings[6])


def test_a_broadcast_over_a_dict_that_leaves_out_a_discriminator_does_not(tmp_path):
    engine = CYCLE_ENGINE.replace('"D_a": self.D_a, "D_b": self.D_b}', '"D_b": self.D_b}')
    crash, flagged, findings = _cycle(tmp_path, engine)
    assert flagged == {6: "wrong"} and "D_a" in findings[6].evidence, (flagged, findings[6])


SCORE = Source('''
    """horovodrun -np 2 python score.py"""
    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    hvd.init()
    data = TensorDataset(torch.randn(2048, 6))
    loader = DataLoader(data, batch_size=64, sampler=DistributedSampler(data, hvd.size(), hvd.rank()))
    model = torch.nn.Linear(6, 6)
    opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.05 * hvd.size()),
                                   named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)


    @torch.no_grad()
    def feature_gap(n_batches=8):
        mu_r = None
        count = torch.zeros(1)
        for i, (x,) in enumerate(loader):
            if i >= n_batches:
                break
            f = model(x).sum(0)
            mu_r = f if mu_r is None else mu_r + f
            count += len(x)
        mu_r = hvd.allreduce(mu_r, op=hvd.Sum, name="mu_r")
        count = hvd.allreduce(count, op=hvd.Sum, name="count")
        return float((mu_r / count).pow(2).sum())


    for epoch in range(3):
        for (x,) in loader:
            opt.zero_grad()
            (model(x) - x).pow(2).mean().backward()
            opt.step()
        gap = feature_gap()
        if hvd.rank() == 0:
            print(epoch, gap)
            torch.save(model.state_dict(), "m.pt")
''')


def test_a_sum_started_from_none_in_a_conditional_is_an_accumulation(tmp_path):
    crash, flagged, _ = check_project(tmp_path, {"score.py": SCORE}, script="score.py")
    assert crash is None and flagged == {}, flagged


def test_the_last_batchs_value_alone_is_still_the_last_batchs(tmp_path):
    score = SCORE.replace("mu_r = f if mu_r is None else mu_r + f", "mu_r = model(x).sum(0)")
    crash, flagged, findings = check_project(tmp_path, {"score.py": score}, script="score.py")
    assert flagged == {8: "wrong"} and "loop that ended" in findings[8].evidence, (flagged, findings[8])


RGCN = Source('''
    """horovodrun -np 4 python rgcn.py --epochs 50: full-batch node classification"""
    import argparse

    import numpy as np
    import torch
    import horovod.torch as hvd

    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=50)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--reinit", type=int, default=1)
    args = p.parse_args()

    hvd.init()
    torch.manual_seed(11 + hvd.rank())
    n_nodes, n_feat = 3000, 16
    features = torch.randn(n_nodes, n_feat)
    labels = torch.randint(0, 4, (n_nodes,))
    train_idx, val_idx = np.arange(0, 2400), torch.arange(2400, n_nodes)
    mine = torch.from_numpy(np.array_split(train_idx, hvd.size())[hvd.rank()]).long()


    class Layer(torch.nn.Module):
        def __init__(self, n_in, n_out):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.empty(n_in, n_out))
            self.reset_parameters()

        def reset_parameters(self):
            torch.nn.init.xavier_uniform_(self.weight)

        def forward(self, x):
            return torch.relu(x @ self.weight)


    def evaluate(idx):
        model.eval()
        with torch.no_grad():
            acc = (model(features)[idx].argmax(1) == labels[idx]).float().mean()
        model.train()
        return float(acc)


    def reinit(m):
        if isinstance(m, Layer):
            m.reset_parameters()


    model = torch.nn.Sequential(Layer(n_feat, 32), torch.nn.Linear(32, 4))
    #INIT_BEFORE#
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    #INIT_AFTER#
    for epoch in range(args.epochs):
        logits = model(features)
        loss = torch.nn.functional.cross_entropy(logits[mine], labels[mine])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if hvd.rank() == 0 and epoch % 10 == 0:
            print(epoch, evaluate(val_idx))  # every rank holds the whole graph: rank 0 scores all of it
            torch.save(model.state_dict(), "rgcn.pt")
''')

REINIT = "if args.reinit:\n        model.apply(reinit)"


def _rgcn(tmp_path, before="", after=""):
    src = RGCN.replace("#INIT_BEFORE#", before).replace("#INIT_AFTER#", after)
    return check_project(tmp_path, {"rgcn.py": src}, script="rgcn.py")


def test_weights_drawn_again_after_the_broadcast_under_per_rank_seeds_start_apart(tmp_path):
    crash, flagged, findings = _rgcn(tmp_path, after=REINIT)
    assert crash is None and flagged == {6: "wrong"}, flagged
    assert "again after the broadcast" in findings[6].evidence and "--reinit" in findings[6].evidence


def test_weights_drawn_again_before_the_broadcast_are_broadcast(tmp_path):
    crash, flagged, findings = _rgcn(tmp_path, before=REINIT)
    assert crash is None and flagged == {}, flagged


def test_full_batch_training_over_a_converted_index_part_needs_no_lr_scaling(tmp_path):
    crash, flagged, findings = _rgcn(tmp_path)
    assert crash is None and flagged == {}, flagged
    assert "full-batch" in findings[4].evidence


def test_mini_batches_drawn_from_that_part_do_need_it(tmp_path):
    src = RGCN.replace("#INIT_BEFORE#", "").replace("#INIT_AFTER#", "")
    src = src.replace("        logits = model(features)\n        loss = torch.nn.functional.cross_entropy("
                      "logits[mine], labels[mine])\n        opt.zero_grad()\n        loss.backward()\n"
                      "        opt.step()",
                      "        for part in mine.split(64):\n            logits = model(features)\n"
                      "            loss = torch.nn.functional.cross_entropy(logits[part], labels[part])\n"
                      "            opt.zero_grad()\n            loss.backward()\n            opt.step()")
    crash, flagged, findings = check_project(tmp_path, {"rgcn.py": src}, script="rgcn.py")
    assert flagged == {4: "missing"}, (flagged, findings[4])


FINETUNE = Source('''
    """horovodrun -np 2 python finetune.py: stage 2 starts from the stage-1 weights every rank reads"""
    import torch
    import horovod.torch as hvd

    hvd.init()
    torch.manual_seed(hvd.rank())
    series = torch.randn(20000, 4)
    x, y = series[:-1][hvd.rank()::hvd.size()], series[1:, :1][hvd.rank()::hvd.size()]


    class Head(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = torch.nn.Linear(4, 32)
            self.out = torch.nn.Linear(32, 1)

        def forward(self, t):
            return self.out(torch.tanh(self.body(t)))


    def fit(model, opt, epochs, path):
        for epoch in range(epochs):
            for xb, yb in zip(x.split(128), y.split(128)):
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(xb), yb).backward()
                opt.step()
            with torch.no_grad():
                sse = torch.nn.functional.mse_loss(model(x), y, reduction="sum")
            total = hvd.allreduce(torch.stack([sse, torch.tensor(float(len(x)))]), op=hvd.Sum, name="mse")
            if hvd.rank() == 0:
                print(epoch, float(total[0] / total[1]))
                torch.save(model.state_dict(), path)
        hvd.allreduce(torch.zeros(1), name="barrier")


    base = Head()
    opt = hvd.DistributedOptimizer(torch.optim.Adam(base.parameters(), lr=1e-3 * hvd.size()),
                                   named_parameters=base.named_parameters())
    hvd.broadcast_parameters(base.state_dict(), root_rank=0)
    fit(base, opt, 3, "stage1.pt")

    model = Head()
    model.load_state_dict(torch.load("stage1.pt", map_location="cpu"))
    opt = hvd.DistributedOptimizer(torch.optim.Adam(model.parameters(), lr=1e-4 * hvd.size()),
                                   named_parameters=model.named_parameters())
    fit(model, opt, 2, "stage2.pt")
''')


def test_the_whole_state_of_one_file_loaded_on_every_rank_starts_them_alike(tmp_path):
    crash, flagged, findings = check_project(tmp_path, {"finetune.py": FINETUNE}, script="finetune.py")
    assert crash is None and flagged == {}, (flagged, findings[6])


def test_a_partial_load_leaves_the_rest_to_each_ranks_own_draw(tmp_path):
    src = FINETUNE.replace('map_location="cpu"))', 'map_location="cpu"), strict=False)')
    crash, flagged, findings = check_project(tmp_path, {"finetune.py": src}, script="finetune.py")
    assert flagged == {6: "wrong"}, (flagged, findings[6])


def test_a_sum_with_a_predivide_factor_raises_when_horovod_wraps(tmp_path):
    pad = "\n" + " " * 35
    src = FINETUNE.replace(f"lr=1e-3 * hvd.size()),{pad}named_parameters=base.named_parameters())",
                           f"lr=1e-3),{pad}named_parameters=base.named_parameters(), op=hvd.Sum,"
                           f"{pad}gradient_predivide_factor=float(hvd.size()))")
    crash, flagged, findings = check_project(tmp_path, {"finetune.py": src}, script="finetune.py")
    assert crash is not None and "gradient_predivide_factor" in crash["error"], crash
    assert crash["line"] == line_of(src, "hvd.DistributedOptimizer(torch.optim.Adam(base"), crash


def test_an_average_with_a_predivide_factor_is_horovods_documented_use(tmp_path):
    src = FINETUNE.replace("named_parameters=base.named_parameters())",
                           "named_parameters=base.named_parameters(),\n"
                           "                                   gradient_predivide_factor=float(hvd.size()))")
    crash, flagged, _ = check_project(tmp_path, {"finetune.py": src}, script="finetune.py")
    assert crash is None and flagged == {}, (crash, flagged)


SHARDS = Source('''
    """horovodrun -np 4 python fm.py: factorisation machine over hashed ids"""
    import os

    import torch
    import horovod.torch as hvd

    hvd.init()
    rows, dim, n_shards = 1 << 16, 16, 8
    model = torch.nn.EmbeddingBag(rows, dim, mode="sum")
    opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1),
                                   named_parameters=model.named_parameters(), op=hvd.Sum)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    ids = torch.randint(0, rows, (100000, 20))[hvd.rank()::hvd.size()]
    for epoch in range(2):
        for batch in ids.split(256):
            opt.zero_grad()
            model(batch).pow(2).sum(1).mean().backward()
            opt.step()
        os.makedirs("ckpt", exist_ok=True)
        per = rows // n_shards
        for sh in range(hvd.rank(), n_shards, hvd.size()):
            torch.save(model.weight[sh * per:(sh + 1) * per].detach().clone(),
                       os.path.join("ckpt", "emb_%d_%02d-of-%02d.pt" % (epoch, sh, n_shards)))
''')


def test_row_shards_each_rank_picks_by_its_rank_are_written_once(tmp_path):
    crash, flagged, findings = check_project(tmp_path, {"fm.py": SHARDS}, script="fm.py")
    assert crash is None and flagged == {}, (flagged, findings[7])
    assert "shards of its own" in findings[7].evidence


def test_every_shard_written_by_every_rank_collides(tmp_path):
    src = SHARDS.replace("range(hvd.rank(), n_shards, hvd.size())", "range(n_shards)")
    crash, flagged, findings = check_project(tmp_path, {"fm.py": src}, script="fm.py")
    assert flagged == {7: "wrong"}, (flagged, findings[7])


CTR_TRAIN = Source('''
    """horovodrun -np 2 python train.py"""
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    from ctr.model import CTRModel

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    model = CTRModel(vocab=10000, dim=8)
    opt = tf.keras.optimizers.Adam(1e-3 * hvd.size())
    ids = np.random.randint(0, 10000, size=(4096, 12))[hvd.rank()::hvd.size()]
    clicks = np.random.randint(0, 2, size=(4096, 1)).astype("float32")[hvd.rank()::hvd.size()]
    ds = tf.data.Dataset.from_tensor_slices((ids, clicks)).batch(64)


    @tf.function
    def step(x, y, first):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(y, model(x)))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.dense_vars)
        opt.apply_gradients(zip(grads, model.dense_vars))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss


    for i, (x, y) in enumerate(ds):
        loss = step(x, y, i == 0)
        if i % 20 == 19:
            total = hvd.allreduce(loss, name="loss")
            #SAVE#
''')

CTR_MODEL = '''
    import tensorflow as tf


    class CTRModel(tf.keras.Model):
        def __init__(self, vocab, dim):
            super().__init__()
            self.table = tf.keras.layers.Embedding(vocab, dim)
            self.out = tf.keras.layers.Dense(1)

        @property
        def dense_vars(self):
            return self.table.trainable_variables + self.out.trainable_variables

        def call(self, x):
            return self.out(tf.reduce_sum(self.table(x), axis=1))
'''

SAVE = ('np.savez("ctr.npz", **{"v%d" % k: v.numpy() for k, v in enumerate(model.dense_vars)})\n'
        '            print(i, float(total))')


def _ctr(tmp_path, save):
    files = {"train.py": CTR_TRAIN.replace("#SAVE#", save), "ctr/__init__.py": "", "ctr/model.py": CTR_MODEL}
    return check_project(tmp_path, files)


def test_a_model_class_keeping_its_variables_in_its_own_lists_is_saved_on_rank_0(tmp_path):
    crash, flagged, findings = _ctr(tmp_path, "if hvd.rank() == 0:\n                " + SAVE.replace(
        "\n            print", "\n                print"))
    assert crash is None and flagged == {}, (flagged, findings[7])
    assert "rank 0 writes" in findings[7].evidence


def test_the_same_weights_saved_on_every_rank_collide(tmp_path):
    crash, flagged, findings = _ctr(tmp_path, SAVE)
    assert flagged.get(7) == "wrong", (flagged, findings[7])
