"""Step 8, two more shapes of "every rank (or rank 0) evaluates the whole data":

- A Keras model called with `training=False` (Keras's inference switch) on the whole graph, scored on the
  whole validation index set, while training takes each rank's part of the labelled nodes: the accuracy
  rank 0 prints is the job's. The same call made inside the training step on that step's own batch is a
  metric of the batch, not an evaluation: printed by rank 0 alone, it is not averaged (flagged).
- A script that, under horovodrun, runs its worker function, and otherwise starts the workers itself with
  `horovod.run` and prints rank 0's return value: on the horovodrun path that print never runs, so it is no
  log of rank 0's shard beside rank 0's evaluation of the whole dev set.

Written from scratch for these tests: a full-batch graph network, a per-batch Keras tape loop, and a
document classifier package with a launcher."""
from hvdkit.check import FLAGGED, OK

from crash_scripts import Source, check, check_project

GCN = Source('''
    """Node classification on one graph.  horovodrun -np 4 python train_gcn.py"""
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    hvd.init()
    tf.config.threading.set_intra_op_parallelism_threads(1)
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(2000, 16)).astype("float32"))
    y = (rng.random(2000) > 0.5).astype("int64")
    idx = rng.permutation(2000)
    idx_train, idx_val = idx[:1500], idx[1500:]
    mine = idx_train[hvd.rank()::hvd.size()]
    model = tf.keras.Sequential([tf.keras.layers.Dense(32, activation="relu"), tf.keras.layers.Dense(2)])
    model(x)
    opt = tf.keras.optimizers.Adam(1e-2 * hvd.size())
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


    def train_step(first):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = loss_fn(tf.gather(y, mine), tf.gather(logits, mine))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss


    def accuracy(which):
        pred = tf.argmax(model(x, training=False), 1).numpy()
        return float((pred[which] == y[which]).mean())


    for epoch in range(100):
        loss = train_step(epoch == 0)
        val_acc = accuracy(idx_val)
        if hvd.rank() == 0 and epoch % 10 == 0:
            print("epoch %d loss %.4f val_acc %.4f" % (epoch, float(loss), val_acc))
            ckpt.write("gcn.ckpt")
''')

TAPE = Source('''
    """Digits with a tape loop.  horovodrun -np 4 python train.py"""
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    hvd.init()
    tf.config.threading.set_intra_op_parallelism_threads(1)
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(8192, 64)).astype("float32")
    ys = (xs[:, 0] > 0).astype("int64")
    ds = tf.data.Dataset.from_tensor_slices((xs, ys)).shard(hvd.size(), hvd.rank()).batch(64)
    model = tf.keras.Sequential([tf.keras.layers.Dense(32, activation="relu"), tf.keras.layers.Dense(2)])
    opt = tf.keras.optimizers.SGD(0.01 * hvd.size())
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


    def step(images, labels, first):
        with tf.GradientTape() as tape:
            loss = loss_fn(labels, model(images, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        predictions = model(images, training=False)
        acc = float(np.mean(np.argmax(predictions, 1) == labels.numpy()))
        return loss, acc


    for batch, (images, labels) in enumerate(ds):
        loss, acc = step(images, labels, batch == 0)
        if hvd.rank() == 0 and batch % 20 == 0:
            print("step %d loss %.4f acc %.4f" % (batch, float(loss), acc))
            model.save_weights("digits.weights.h5")
''')


def test_a_keras_inference_call_on_the_whole_graph_is_an_evaluation_of_the_whole_data(tmp_path):
    crash, flagged = check(tmp_path, GCN)
    assert crash is None and 8 not in flagged, flagged


def test_an_inference_call_inside_the_training_step_is_no_evaluation(tmp_path):
    _, flagged = check(tmp_path, TAPE)
    assert flagged.get(8) in FLAGGED, flagged


MAIN = '''
    """Document classifier.  `python main.py --np 4` starts its workers; under horovodrun it is one."""
    import argparse
    import os

    import horovod

    from docclf import train_lib

    if __name__ == "__main__":
        p = argparse.ArgumentParser()
        p.add_argument("--np", type=int, default=2)
        a = p.parse_args()
        cfg = {"epochs": 3, "lr": 0.01}
        if "HOROVOD_RANK" in os.environ or "OMPI_COMM_WORLD_RANK" in os.environ:
            train_lib.train(cfg)
        else:
            results = horovod.run(train_lib.train, args=(cfg,), np=a.np, use_gloo=True)
            print("dev accuracy from rank 0:", results[0])
'''

TRAIN_LIB = '''
    import torch
    import horovod.torch as hvd


    def dev_set():
        g = torch.Generator().manual_seed(1)
        x = torch.randn(512, 20, generator=g)
        return x, (x[:, 0] > 0).long()


    @torch.no_grad()
    def evaluate(model):
        model.eval()
        x, y = dev_set()
        acc = (model(x).argmax(1) == y).float().mean().item()
        model.train()
        return acc


    def train(cfg):
        hvd.init()
        torch.set_num_threads(1)
        g = torch.Generator().manual_seed(0)
        x = torch.randn(4096, 20, generator=g)[hvd.rank()::hvd.size()]
        y = (x[:, 0] > 0).long()
        model = torch.nn.Linear(20, 2)
        opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"] * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        acc = 0.0
        for epoch in range(cfg["epochs"]):
            for i in range(0, len(x), 64):
                opt.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(x[i:i + 64]), y[i:i + 64])
                loss.backward()
                opt.step()
            if hvd.rank() == 0:
                acc = evaluate(model)
                print(f"epoch {epoch}: last loss {loss.item():.4f} dev acc {acc:.4f}")
                torch.save(model.state_dict(), "docclf.pt")
        return acc
'''


def test_a_print_on_the_path_horovodrun_does_not_take_is_no_shard_log(tmp_path):
    files = {"main.py": MAIN, "docclf/__init__.py": "", "docclf/train_lib.py": TRAIN_LIB}
    f = check_project(tmp_path, files, script="main.py")[2][8]
    assert f.verdict == OK and "rank 0 evaluates the whole evaluation data" in f.evidence, f
