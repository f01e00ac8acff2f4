"""Shapes of calibration research code (issue 39, class 3: definitions and data flow, not spelling):

- step 8: an ECE helper computes `np.log(probs + 1e-12)` for the entropy and sums its bin statistics over
  ranks before dividing: `np.log` is arithmetic, not a logger's `log`, so it reports nothing; the report is
  the print of the summed statistics (right). Without the sum, rank 0 prints its own shard's ECE (flagged).
- step 3: samplers made in a list comprehension and handed to loaders through `zip(datasets, samplers)`:
  a loop's target is an element of what it iterates (at its position in the zip), so each sampler is used.
  Loaders handed `shuffle=True` instead leave the samplers unused (flagged).
"""
from crash_scripts import Source, check

ECE = Source('''
    """Photometric redshift bins with calibration: horovodrun -np 2 python train.py"""
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    blob = np.load("data/photoz.npz")
    x, y = blob["x"].astype("float32"), blob["y"]
    x_val, y_val = blob["x_val"].astype("float32"), blob["y_val"]
    train = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).shuffle(1024).batch(64)
    model = tf.keras.Sequential([tf.keras.Input((x.shape[1],)), tf.keras.layers.Dense(64, activation="relu"),
                                 tf.keras.layers.Dense(20)])
    opt = tf.keras.optimizers.Adam(1e-3 * hvd.size())


    @tf.function
    def train_step(xb, yb, first):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(yb, model(xb), from_logits=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss


    def calibration(xs, ys, bins=10):
        xs, ys = xs[hvd.rank()::hvd.size()], ys[hvd.rank()::hvd.size()]
        probs = tf.nn.softmax(model.predict(xs, verbose=0)).numpy()
        conf, pred = probs.max(-1), probs.argmax(-1)
        b = np.minimum((conf * bins).astype(int), bins - 1)
        stats = np.concatenate([np.bincount(b, weights=conf, minlength=bins),
                                np.bincount(b, weights=(pred == ys).astype("float64"), minlength=bins),
                                [-(probs * np.log(probs + 1e-12)).sum(), len(ys)]])
        #REDUCE
        conf_sum, hit_sum = np.split(stats[:-2], 2)
        return np.abs(hit_sum - conf_sum).sum() / stats[-1], stats[-2] / stats[-1]


    for epoch in range(3):
        for step, (xb, yb) in enumerate(train):
            train_step(xb, yb, epoch == 0 and step == 0)
        ece, entropy = calibration(x_val, y_val)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: ECE {ece:.4f} entropy {entropy:.3f}")
            model.save_weights("photoz.weights.h5")
''')


def test_bin_statistics_summed_over_ranks_beside_an_np_log_are_the_jobs_ece(tmp_path):
    crash, flagged = check(tmp_path, ECE.replace(
        "#REDUCE", 'stats = hvd.allreduce(tf.constant(stats, tf.float64), op=hvd.Sum, name="calib").numpy()'))
    assert crash is None and flagged == {}


def test_bin_statistics_of_this_ranks_shard_alone_are_not_averaged(tmp_path):
    crash, flagged = check(tmp_path, ECE.replace("#REDUCE", "pass"))
    assert crash is None and flagged == {8: "missing"}


LOADERS = Source('''
    """CIFAR-100 with a held-out calibration split: horovodrun -np 2 python train.py"""
    import torch
    import torch.nn.functional as F
    import torchvision
    import torchvision.transforms as T
    from torch.utils.data import DataLoader, Subset
    from torch.utils.data.distributed import DistributedSampler
    import horovod.torch as hvd


    def build_data(root, batch_size):
        full = torchvision.datasets.CIFAR100(root, train=True, transform=T.ToTensor())
        perm = torch.randperm(len(full), generator=torch.Generator().manual_seed(1234)).tolist()
        train, calib = Subset(full, perm[5000:]), Subset(full, perm[:5000])
        samplers = [DistributedSampler(d, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=s)
                    for d, s in ((train, True), (calib, False))]
        loaders = [DataLoader(d, batch_size=batch_size, #GIVEN#)
                   for d, s in zip((train, calib), samplers)]
        return loaders, samplers[0]


    def main():
        hvd.init()
        torch.set_num_threads(1)
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
        (train_loader, calib_loader), train_sampler = build_data("data", 128)
        model = torchvision.models.resnet18(num_classes=100)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05 * hvd.size(), momentum=0.9)
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        for epoch in range(10):
            train_sampler.set_epoch(epoch)
            model.train()
            for x, y in train_loader:
                optimizer.zero_grad()
                F.cross_entropy(model(x), y).backward()
                optimizer.step()
            model.eval()
            nll, n = torch.zeros(()), torch.zeros(())
            with torch.no_grad():
                for x, y in calib_loader:
                    nll += F.cross_entropy(model(x), y, reduction="sum")
                    n += len(y)
            nll, n = hvd.allreduce(nll, op=hvd.Sum, name="nll"), hvd.allreduce(n, op=hvd.Sum, name="n")
            if hvd.rank() == 0:
                print(epoch, (nll / n).item())
                torch.save(model.state_dict(), "cifar.pt")


    if __name__ == "__main__":
        main()
''')


def test_samplers_handed_to_their_loaders_through_a_zip_partition_the_data(tmp_path):
    crash, flagged = check(tmp_path, LOADERS.replace("#GIVEN#", "sampler=s"))
    assert crash is None and flagged == {}


def test_samplers_made_beside_shuffling_loaders_are_not_used(tmp_path):
    crash, flagged = check(tmp_path, LOADERS.replace("#GIVEN#", "shuffle=True"))
    assert crash is None and 3 in flagged
