"""`hvdkit check`, static pass, step 5 (gradients averaged) judged by what the code computes (issue 39):
a sum over ranks with an unscaled LR is the average with a scaled one; named_parameters may name a
superset of what the optimizer trains, not a subset; AMP and clipping behind an off-by-default flag are
faults named with the flag; an optimizer rebuilt (or a Keras model recompiled) for a second phase must be
wrapped again; an allreduce is gradient averaging by what it is given, not by its name. Scripts written
from scratch in the shape of real trainers (flags with defaults, a Trainer class, helpers); each broken one
is flagged on step 5, its correct twin is not. Nothing here imports a framework."""
from hvdkit.check import OK, WRONG, MISSING
from rules_b_scripts import finding


def _step5(tmp_path, src):
    return finding(tmp_path, src, 5)


TORCH = '''
    """Classifier trainer."""
    import argparse

    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def parse():
        p = argparse.ArgumentParser()
        p.add_argument("--lr", type=float, default=0.01)
        p.add_argument("--epochs", type=int, default=3)
        p.add_argument("--amp", action="store_true", help="mixed precision")
        p.add_argument("--clip", type=float, default=1.0)
        p.add_argument("--finetune-epochs", type=int, default=0)
        return p.parse_args()


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone = nn.Sequential(nn.Linear(20, 64), nn.ReLU())
            self.head = nn.Linear(64, 4)

        def forward(self, x):
            return self.head(self.backbone(x))


    class Trainer:
        def __init__(self, args, model, loader, sampler):
            self.args, self.model, self.loader, self.sampler = args, model, loader, sampler
            self.opt = self.make_optimizer()
            self.scaler = torch.cuda.amp.GradScaler() if args.amp else None

        def make_optimizer(self):
    {make}

        def step(self, x, y):
            self.opt.zero_grad()
            if self.args.amp:
                with torch.autocast("cuda"):
                    loss = F.cross_entropy(self.model(x), y)
                self.scaler.scale(loss).backward()
    {amp}
                self.scaler.update()
            else:
                loss = F.cross_entropy(self.model(x), y)
                loss.backward()
                self.opt.step()
            return loss

        def fit(self, epochs):
            for epoch in range(epochs):
                self.sampler.set_epoch(epoch)
                total, n = 0.0, 0
                for x, y in self.loader:
                    total += self.step(x, y).item()
                    n += 1
                avg = hvd.allreduce(torch.tensor(total / n), name="loss").item()
                if hvd.rank() == 0:
                    print(f"epoch {{epoch}} loss {{avg:.4f}}")
                    torch.save(self.model.state_dict(), f"ckpt-{{epoch}}.pt")


    def main():
        args = parse()
        hvd.init()
        torch.set_num_threads(1)
        data = TensorDataset(torch.randn(512, 20), torch.randint(0, 4, (512,)))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=32, sampler=sampler)
        model = Net()
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        trainer = Trainer(args, model, loader, sampler)
        trainer.fit(args.epochs)
    {phase2}


    if __name__ == "__main__":
        main()
'''

WRAP = '''        opt = torch.optim.SGD(self.model.parameters(), lr={lr}, momentum=0.9)
            return hvd.DistributedOptimizer(opt, named_parameters={named}{op})'''
AMP_OK = '''            self.opt.synchronize()
                self.scaler.unscale_(self.opt)
                nn.utils.clip_grad_norm_(self.model.parameters(), self.args.clip)
                with self.opt.skip_synchronize():
                    self.scaler.step(self.opt)'''


def _torch(make=None, amp=AMP_OK, phase2="", lr="args.lr * hvd.size()", named="self.model.named_parameters()", op=""):
    make = make or WRAP.format(lr=lr.replace("args.", "self.args."), named=named, op=op)
    return TORCH.format(make=make, amp=amp, phase2=phase2)


def test_the_trainer_is_ok(tmp_path):
    assert _step5(tmp_path, _torch()).verdict == OK


# --- class 4: a sum with an unscaled LR is the average with a scaled one ------------------------------------
def test_summed_gradients_are_wrong_only_on_top_of_a_scaled_lr(tmp_path):
    # Without the equivalence (any op=hvd.Sum flagged) the first script is flagged.
    f = _step5(tmp_path, _torch(lr="args.lr", op=", op=hvd.Sum"))
    assert f.verdict == OK and "same update" in f.evidence, f.evidence
    f = _step5(tmp_path, _torch(lr="args.lr * hvd.size()", op=", op=hvd.Sum"))
    assert f.verdict == WRONG and "on top of the LR scaled" in f.evidence, f.evidence


TAPE = '''
    import tensorflow as tf
    import horovod.tensorflow as hvd

    CONFIG = {{"lr": 1e-3, "epochs": 2, "batch": 64}}


    def build():
        return tf.keras.Sequential([tf.keras.layers.Input((8,)), tf.keras.layers.Dense(1)])


    def train(cfg):
        hvd.init()
        model = build()
        opt = tf.keras.optimizers.Adam(learning_rate={lr})
        x = tf.random.normal((1024, 8))
        ds = tf.data.Dataset.from_tensor_slices((x, x[:, :1])).shard(hvd.size(), hvd.rank()).batch(cfg["batch"])
        for epoch in range(cfg["epochs"]):
            for step, (xb, yb) in enumerate(ds):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(xb) - yb))
                tape = hvd.DistributedGradientTape(tape, op=hvd.Sum)
                grads = tape.gradient(loss, model.trainable_variables)
                opt.apply_gradients(zip(grads, model.trainable_variables))
                if epoch == 0 and step == 0:
                    hvd.broadcast_variables(model.variables, root_rank=0)
                    hvd.broadcast_variables(opt.variables, root_rank=0)


    if __name__ == "__main__":
        train(CONFIG)
'''


def test_a_summing_tape_follows_the_same_rule(tmp_path):
    assert _step5(tmp_path, TAPE.format(lr='cfg["lr"]')).verdict == OK
    assert _step5(tmp_path, TAPE.format(lr='cfg["lr"] * hvd.size()')).verdict == WRONG


# --- class 4: named_parameters may name more than the optimizer holds ---------------------------------------
HEAD_ONLY = '''        opt = torch.optim.SGD(self.model.head.parameters(), lr=self.args.lr * hvd.size())
            return hvd.DistributedOptimizer(opt, named_parameters={named})'''


def test_named_parameters_of_the_whole_model_for_a_head_only_optimizer_are_fine(tmp_path):
    # Before: "names the parameters of `self.model`, but the optimizer trains those of `self.model.head`".
    f = _step5(tmp_path, _torch(make=HEAD_ONLY.format(named="self.model.named_parameters()")))
    assert f.verdict == OK, f.evidence


def test_named_parameters_of_a_part_of_what_the_optimizer_holds_raise(tmp_path):
    groups = '''        opt = torch.optim.SGD(self.model.backbone.parameters(), lr=self.args.lr * hvd.size())
            opt.add_param_group({"params": self.model.head.parameters(), "lr": self.args.lr})
            return hvd.DistributedOptimizer(opt, named_parameters=self.model.backbone.named_parameters())'''
    f = _step5(tmp_path, _torch(make=groups))
    assert f.verdict == WRONG and "ValueError" in f.evidence and "self.model.head" in f.evidence, f.evidence


# --- class 4: faults behind an off-by-default flag are wrong, with the flag named ---------------------------
def test_amp_unscaling_before_synchronize_behind_a_flag_is_wrong_with_the_flag(tmp_path):
    unscale_first = '''            self.scaler.unscale_(self.opt)
                self.opt.synchronize()
                nn.utils.clip_grad_norm_(self.model.parameters(), self.args.clip)
                with self.opt.skip_synchronize():
                    self.scaler.step(self.opt)'''
    # Before: any synchronize() anywhere made the script ok.
    f = _step5(tmp_path, _torch(amp=unscale_first))
    assert f.verdict == WRONG and f.evidence.startswith("with --amp:") and "GradScaler" in f.evidence, f.evidence


def test_amp_without_synchronize_behind_a_flag_names_the_flag(tmp_path):
    plain = '''            self.scaler.step(self.opt)'''
    # Before: the scaler made in a conditional expression was not seen as a GradScaler: ok.
    f = _step5(tmp_path, _torch(amp=plain))
    assert f.verdict == WRONG and f.evidence.startswith("with --amp:"), f.evidence


def test_a_step_after_synchronize_outside_skip_synchronize_is_wrong(tmp_path):
    unskipped = '''            self.opt.synchronize()
                self.scaler.unscale_(self.opt)
                nn.utils.clip_grad_norm_(self.model.parameters(), self.args.clip)
                self.scaler.step(self.opt)'''
    f = _step5(tmp_path, _torch(amp=unskipped))
    assert f.verdict == WRONG and "skip_synchronize" in f.evidence and f.evidence.startswith("with --amp:"), \
        f.evidence


# --- class 3: an optimizer rebuilt for a second phase must be wrapped again ---------------------------------
PHASE2 = '''    if {cond}:
            for p in model.backbone.parameters():
                p.requires_grad = True
            trainer.opt = {opt}
            trainer.fit({epochs})'''
PLAIN = "torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size() * 0.1)"
REWRAPPED = ("hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size() * 0.1), "
             "named_parameters=model.named_parameters())")


def test_a_second_phase_optimizer_left_unwrapped_is_wrong(tmp_path):
    # Before: an optimizer that a wrapper once held (by its name) was taken as wrapped for good: ok.
    phase2 = PHASE2.format(cond="True", opt=PLAIN, epochs=1).replace("    if True:\n", "    if True:\n")
    f = _step5(tmp_path, _torch(phase2=phase2))
    assert f.verdict == WRONG and "not wrapped" in f.evidence, f.evidence
    assert _step5(tmp_path, _torch(phase2=PHASE2.format(cond="True", opt=REWRAPPED, epochs=1))).verdict == OK


def test_a_second_phase_behind_a_flag_names_the_flag(tmp_path):
    phase2 = PHASE2.format(cond="args.finetune_epochs > 0", opt=PLAIN, epochs="args.finetune_epochs")
    f = _step5(tmp_path, _torch(phase2=phase2))
    assert f.verdict == WRONG and "args.finetune_epochs > 0" in f.evidence, f.evidence


KERAS = '''
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd


    def main(epochs=3, fine_tune_epochs=2, base_lr=1e-3):
        hvd.init()
        (x, y), _ = tf.keras.datasets.mnist.load_data()
        ds = tf.data.Dataset.from_tensor_slices((x / 255.0, y)).shard(hvd.size(), hvd.rank()).batch(64)
        base = tf.keras.applications.MobileNetV2(include_top=False, weights=None, input_shape=(28, 28, 1))
        base.trainable = False
        model = tf.keras.Sequential([base, tf.keras.layers.GlobalAveragePooling2D(), tf.keras.layers.Dense(10)])
        opt = hvd.DistributedOptimizer(tf.keras.optimizers.Adam(base_lr * hvd.size()))
        model.compile(optimizer=opt, loss="sparse_categorical_crossentropy")
        callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
        model.fit(ds, epochs=epochs, callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)
        base.trainable = True
        model.compile(optimizer={second}, loss="sparse_categorical_crossentropy")
        model.fit(ds, epochs=fine_tune_epochs, callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)
        if hvd.rank() == 0:
            model.save("model.keras")


    main()
'''


def test_a_keras_model_recompiled_with_a_plain_optimizer_is_wrong(tmp_path):
    f = _step5(tmp_path, KERAS.format(second="tf.keras.optimizers.Adam(base_lr * hvd.size() / 10)"))
    assert f.verdict == WRONG and "not wrapped" in f.evidence, f.evidence
    f = _step5(tmp_path, KERAS.format(second='"adam"'))
    assert f.verdict == WRONG, f.evidence
    f = _step5(tmp_path, KERAS.format(second="hvd.DistributedOptimizer(tf.keras.optimizers.Adam(base_lr * hvd.size() "
                                             "/ 10))"))
    assert f.verdict == OK, f.evidence


# --- class 3: an allreduce averages gradients by what it is given, not by its name --------------------------
def test_an_allreduce_of_a_gradient_norm_is_not_gradient_averaging(tmp_path):
    unwrapped = '''        return torch.optim.SGD(self.model.parameters(), lr=self.args.lr * hvd.size())'''
    src = _torch(make=unwrapped).replace(
        "                loss.backward()\n                self.opt.step()",
        "                loss.backward()\n"
        "                grad_norm = nn.utils.clip_grad_norm_(self.model.parameters(), self.args.clip)\n"
        "                grad_norm = hvd.allreduce(grad_norm, name=\"grad_norm\")\n"
        "                self.opt.step()")
    assert "grad_norm = hvd.allreduce" in src
    # Before: an allreduce whose text says "grad" counted as averaging the gradients: ok.
    assert _step5(tmp_path, src).verdict == MISSING


DISTILL = '''
    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd


    def teacher_optimizer(teacher, lr):
        opt = torch.optim.SGD(teacher.parameters(), lr=lr * hvd.size(), momentum=0.9)
        return hvd.DistributedOptimizer(opt, named_parameters=teacher.named_parameters())


    def student_optimizer(student, lr):
        opt = torch.optim.SGD({student_params}, lr=lr * hvd.size())
        return hvd.DistributedOptimizer(opt, named_parameters=student.named_parameters())


    def main():
        hvd.init()
        x, y = torch.randn(256, 8)[hvd.rank()::hvd.size()], torch.randint(0, 2, (256,))[hvd.rank()::hvd.size()]
        teacher, student = torch.nn.Linear(8, 2), torch.nn.Linear(8, 2)
        t_opt, s_opt = teacher_optimizer(teacher, 0.1), student_optimizer(student, 0.01)
        for m in (teacher, student):
            hvd.broadcast_parameters(m.state_dict(), root_rank=0)
        for _ in range(3):
            t_opt.zero_grad()
            F.cross_entropy(teacher(x), y).backward()
            t_opt.step()
            s_opt.zero_grad()
            F.mse_loss(student(x), teacher(x).detach()).backward()
            s_opt.step()


    main()
'''


def test_an_optimizer_of_the_same_name_in_another_function_is_another_optimizer(tmp_path):
    # Before this commit's reaching definitions: `opt` in student_optimizer was also teacher_optimizer's, so
    # the student's names "missed" the teacher's parameters.
    assert _step5(tmp_path, DISTILL.format(student_params="student.parameters()")).verdict == OK
    f = _step5(tmp_path, DISTILL.format(student_params="list(student.parameters()) + list(teacher.parameters())"))
    assert f.verdict == WRONG and "`teacher`" in f.evidence and "ValueError" in f.evidence, f.evidence


GAN_TF = '''
    """DCGAN on 4 ranks: horovodrun -np 4 python train_gan.py --epochs 20"""
    import argparse

    import tensorflow as tf
    import horovod.tensorflow as hvd


    class GanTrainer:
        def __init__(self, lr):
            self.gen = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(32)])
            self.disc = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(1)])
            self.g_opt = tf.keras.optimizers.Adam(lr * hvd.size(), beta_1=0.5)
            self.d_opt = tf.keras.optimizers.Adam(lr * hvd.size(), beta_1=0.5)

        @tf.function
        def step(self, real, first):
            z = tf.random.normal([tf.shape(real)[0], 16])
            with tf.GradientTape() as g_tape, tf.GradientTape() as d_tape:
                fake = self.gen(z, training=True)
                d_real, d_fake = self.disc(real, training=True), self.disc(fake, training=True)
                g_loss = -tf.reduce_mean(d_fake)
                d_loss = tf.reduce_mean(d_fake) - tf.reduce_mean(d_real)
            g_tape = hvd.DistributedGradientTape(g_tape)
            {d_wrap}
            g_grads = g_tape.gradient(g_loss, self.gen.trainable_variables)
            d_grads = d_tape.gradient(d_loss, self.disc.trainable_variables)
            self.g_opt.apply_gradients(zip(g_grads, self.gen.trainable_variables))
            self.d_opt.apply_gradients(zip(d_grads, self.disc.trainable_variables))
            if first:
                for v in (self.gen.variables, self.disc.variables, self.g_opt.variables, self.d_opt.variables):
                    hvd.broadcast_variables(v, root_rank=0)
            return g_loss, d_loss


    def main():
        p = argparse.ArgumentParser()
        p.add_argument("--epochs", type=int, default=20)
        p.add_argument("--lr", type=float, default=2e-4)
        args = p.parse_args()
        hvd.init()
        tf.config.threading.set_intra_op_parallelism_threads(1)
        data = tf.data.Dataset.from_tensor_slices(tf.random.normal([4096, 32]))
        data = data.shard(hvd.size(), hvd.rank()).shuffle(1024).batch(64)
        trainer = GanTrainer(args.lr)
        ckpt = tf.train.Checkpoint(gen=trainer.gen, disc=trainer.disc)
        for epoch in range(args.epochs):
            for i, real in enumerate(data):
                g_loss, d_loss = trainer.step(real, epoch == 0 and i == 0)
            g_mean = hvd.allreduce(g_loss)
            if hvd.rank() == 0:
                print(f"epoch {epoch} G {g_mean.numpy():.4f}")
                ckpt.save("ckpt/gan")


    if __name__ == "__main__":
        main()
'''


def test_a_second_tape_left_unwrapped_steps_with_this_ranks_gradients(tmp_path):
    """The generator's tape is wrapped, the discriminator's (bound by the same `with`) is not: its gradients
    are each rank's own. (Before: step 5 ok, from the one wrapper seen.) Both wrapped: ok."""
    f = _step5(tmp_path, GAN_TF.replace("{d_wrap}", "pass"))
    assert f.verdict == WRONG and "d_tape.gradient(d_loss" in f.evidence, f.evidence
    fixed = GAN_TF.replace("{d_wrap}", "d_tape = hvd.DistributedGradientTape(d_tape)")
    assert _step5(tmp_path, fixed).verdict == OK
    # A sum of an averaged part and a plain one is this rank's own for that part.
    joined = fixed.replace("self.d_opt.apply_gradients(zip(d_grads, self.disc.trainable_variables))",
                           "self.d_opt.apply_gradients(zip(d_grads + g_tape_plain.gradient(g_loss, extra), "
                           "self.disc.trainable_variables + extra))")
    joined = joined.replace("with tf.GradientTape() as g_tape,", "extra = []\n" + " " * 12 +
                            "with tf.GradientTape() as g_tape_plain, tf.GradientTape() as g_tape,")
    f = _step5(tmp_path, joined)
    assert f.verdict == WRONG and "g_tape_plain.gradient" in f.evidence, f.evidence
