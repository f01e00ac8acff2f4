"""`hvdkit check`, static pass, step 8 (the metrics reported are the job's) judged by what the code does with
the data (issue 39, classes 3, 4 and 6): evaluation data is data the model runs on without an optimizer step,
whatever it is called; whether each rank reads its own part is followed from the data's source (a sampler,
a shard, a file named by the local rank); a collective whose result is thrown away is a barrier, not an
average; a report labelled with the rank is that rank's log; a metric computed by code the pass cannot
read gives "cannot tell", not "missing". Scripts written from scratch in the shape of real trainers; each
broken one is flagged on step 8, its correct twin is not. No framework is imported."""
from hvdkit.check import MISSING, OK, UNKNOWN, WRONG
from rules_b_scripts import finding


def _step8(tmp_path, src):
    return finding(tmp_path, src, 8)


TORCH = '''
    import argparse

    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler
    {imports}


    def make_splits(n=1200, holdout=200):
        x, y = torch.randn(n, 16), torch.randint(0, 4, (n,))
        return TensorDataset(x[holdout:], y[holdout:]), TensorDataset(x[:holdout], y[:holdout])


    class Trainer:
        def __init__(self, model, lr):
            self.model = model
            opt = torch.optim.SGD(model.parameters(), lr=lr * hvd.size())
            self.opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
            hvd.broadcast_parameters(model.state_dict(), root_rank=0)

        def train_epoch(self, loader):
            self.model.train()
            total = 0.0
            for x, y in loader:
                self.opt.zero_grad()
                loss = F.cross_entropy(self.model(x), y)
                loss.backward()
                self.opt.step()
                total += loss.item()
    {train_log}
            return total / len(loader)

        @torch.no_grad()
        def score(self, loader):
            self.model.eval()
            hits = seen = 0
            for x, y in loader:
                hits += (self.model(x).argmax(1) == y).sum().item()
                seen += len(y)
            return hits / seen


    def main(epochs=3):
        hvd.init()
        torch.set_num_threads(1)
        train_set, holdout = make_splits()
        sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
        train_loader = DataLoader(train_set, batch_size=32, sampler=sampler)
        holdout_loader = {holdout_loader}
        trainer = Trainer(nn.Linear(16, 4), lr=0.05)
        for epoch in range(epochs):
            sampler.set_epoch(epoch)
            loss = trainer.train_epoch(train_loader)
            acc = {score}
            if hvd.rank() == 0:
                print(f"epoch {{epoch}} loss {{loss:.4f}} acc {{acc:.4f}}")
                torch.save(trainer.model.state_dict(), "model.pt")


    if __name__ == "__main__":
        main()
'''
WHOLE = "DataLoader(holdout, batch_size=64)"
SHARDED = "DataLoader(holdout, batch_size=64, sampler=DistributedSampler(holdout, hvd.size(), hvd.rank()))"


def _torch(holdout_loader=WHOLE, score="trainer.score(holdout_loader)", train_log="", imports=""):
    return TORCH.format(holdout_loader=holdout_loader, score=score, train_log=train_log, imports=imports)


def test_an_evaluation_set_is_known_by_what_the_model_does_on_it(tmp_path):
    # Before: a data set not named val/test/eval was no evaluation; rank 0's training loss then made it
    # "rank 0's alone: never averaged".
    f = _step8(tmp_path, _torch())
    assert f.verdict == OK and "whole evaluation data" in f.evidence, f.evidence
    f = _step8(tmp_path, _torch(holdout_loader=SHARDED))
    assert f.verdict == MISSING, f.evidence


def test_an_averaged_evaluation_on_each_ranks_part_is_the_jobs(tmp_path):
    averaged = "hvd.allreduce(torch.tensor(trainer.score(holdout_loader)), name='acc').item()"
    f = _step8(tmp_path, _torch(holdout_loader=SHARDED, score=averaged).replace(
        '    loss = trainer.train_epoch(train_loader)',
        '    loss = hvd.allreduce(torch.tensor(trainer.train_epoch(train_loader)), name="loss").item()'))
    assert f.verdict == OK, f.evidence


LABELLED = '                print("[rank %d] val batch acc %.3f" % (hvd.rank(), hits / seen))\n'


def test_a_log_labelled_with_the_rank_is_that_ranks_own(tmp_path):
    averaged = "hvd.allreduce(torch.tensor(trainer.score(val_loader)), name='acc').item()"
    src = _torch(holdout_loader=SHARDED, score=averaged).replace(
        '    loss = trainer.train_epoch(train_loader)',
        '    loss = hvd.allreduce(torch.tensor(trainer.train_epoch(train_loader)), name="loss").item()').replace(
        "holdout_loader = ", "val_loader = ").replace(
        "                seen += len(y)\n", "                seen += len(y)\n" + LABELLED).replace("holdout", "val_set")
    assert "[rank %d] val batch acc" in src
    # Before: each rank's per-batch progress line, labelled with its rank, was "the evaluation metric reported
    # is this rank's part's and is never averaged", beside the averaged accuracy.
    assert _step8(tmp_path, src).verdict == OK


def test_a_metric_computed_by_code_that_cannot_be_read_cannot_tell(tmp_path):
    src = _torch(score="score_model(trainer.model, holdout_loader)",
                 imports="from lab.metrics import score_model")
    # Before: "the metrics reported are rank 0's alone", with nothing read that says so.
    f = _step8(tmp_path, src)
    assert f.verdict == UNKNOWN and "score_model" in f.evidence, f.evidence


TAPE = '''
    import argparse

    import tensorflow as tf
    import horovod.tensorflow as hvd


    def input_fn(prefix, batch):
        # the files were split in advance, one per GPU of a node
        return tf.data.TFRecordDataset(prefix + str(hvd.local_rank()) + ".tfrecord").batch(batch)


    def train(args):
        hvd.init()
        model = tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(1)])
        opt = tf.keras.optimizers.SGD(0.01 * hvd.size())
        data = {data}
        for step, (x, y) in enumerate(data):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            if step == 0:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(opt.variables, root_rank=0)
            print("step", step, "loss", float({reported}))
        if hvd.rank() == 0:
            model.save_weights("final.weights.h5")


    if __name__ == "__main__":
        p = argparse.ArgumentParser()
        p.add_argument("--prefix", default="data/part-")
        train(p.parse_args())
'''


def test_data_read_per_rank_from_a_file_named_by_the_local_rank_is_each_ranks_own(tmp_path):
    src = TAPE.format(data="input_fn(args.prefix, 64)", reported="loss")
    # Before: no partition step 3 knows, so "every rank computes its metrics on the same, whole data".
    f = _step8(tmp_path, src)
    assert f.verdict == MISSING, f.evidence
    averaged = TAPE.format(data="input_fn(args.prefix, 64)", reported="hvd.allreduce(loss)")
    assert _step8(tmp_path, averaged).verdict == OK


KERAS = '''
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd


    def main():
        hvd.init()
        (x, y), (x_test, y_test) = tf.keras.datasets.mnist.load_data()
        part = slice(hvd.rank() * len(x) // hvd.size(), (hvd.rank() + 1) * len(x) // hvd.size())
        x, y = x[part] / 255.0, y[part]
        model = tf.keras.Sequential([tf.keras.Input((28, 28)), tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
        model.compile(optimizer=hvd.DistributedOptimizer(tf.keras.optimizers.Adam(1e-3 * hvd.size())),
                      loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
        callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0)]
        hvd.allgather(tf.constant([0]))  # wait for every rank before timing
        model.fit(x, y, batch_size=64, epochs=2, callbacks=callbacks, verbose=2)
    {after}


    main()
'''


def test_a_collective_whose_result_is_thrown_away_is_a_barrier_not_an_average(tmp_path):
    # Before: the barrier counted as averaging the metrics: ok.
    f = _step8(tmp_path, KERAS.format(after=""))
    assert f.verdict == MISSING and "fit" in f.evidence, f.evidence


def test_fit_logs_beside_an_evaluation_of_the_whole_test_set_on_every_rank(tmp_path):
    after = ('    loss, acc = model.evaluate(x_test / 255.0, y_test, verbose=0)\n'
             '        if hvd.rank() == 0:\n'
             '            print(f"test loss {loss:.4f} acc {acc:.4f}")')
    # The labels' convention: rank 0's metrics are the job's when every rank evaluates the same, whole data.
    f = _step8(tmp_path, KERAS.format(after=after))
    assert f.verdict == OK and "whole evaluation data" in f.evidence, f.evidence
    shard = after.replace("model.evaluate(x_test / 255.0, y_test,",
                          "model.evaluate(x_test[hvd.rank()::hvd.size()] / 255.0, y_test[hvd.rank()::hvd.size()],")
    assert _step8(tmp_path, KERAS.format(after=shard)).verdict == MISSING


def test_an_average_callback_made_and_never_given_to_fit_is_wrong(tmp_path):
    src = KERAS.format(after="").replace(
        "        callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0)]\n",
        "        callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0)]\n"
        "        averaging = [hvd.callbacks.MetricAverageCallback()]\n")
    f = _step8(tmp_path, src)
    assert f.verdict == WRONG and "never passed" in f.evidence, f.evidence
    given = src.replace("callbacks=callbacks,", "callbacks=callbacks + averaging,")
    assert _step8(tmp_path, given).verdict == OK
