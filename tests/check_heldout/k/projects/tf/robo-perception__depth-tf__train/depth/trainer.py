import time

import horovod.tensorflow as hvd
import tensorflow as tf

from .dataset import load_intrinsics, make_dataset, triplet_files
from .geometry import disp_to_depth, inverse_warp, photometric_error, smoothness
from .networks import DepthNet, PoseNet


class DepthTrainer:
    def __init__(self, cfg):
        self.cfg = cfg
        hvd.init()
        gpus = tf.config.experimental.list_physical_devices("GPU")
        for gpu in gpus:
            tf.config.experimental.set_memory_growth(gpu, True)
        if gpus:
            tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

        files = triplet_files(cfg["data_dir"])
        n = len(files) // hvd.size()
        self.files = files[hvd.rank() * n:(hvd.rank() + 1) * n]
        self.dataset = make_dataset(self.files, cfg["height"], cfg["width"], cfg["batch_size"],
                                    shuffle_seed=hvd.rank())
        self.steps_per_epoch = n // cfg["batch_size"]
        K = load_intrinsics(cfg["data_dir"])
        K[0] *= cfg["width"]
        K[1] *= cfg["height"]
        self.K = tf.constant(K)

        self.depth_net = DepthNet()
        self.pose_net = PoseNet()
        self.optimizer = tf.keras.optimizers.Adam(cfg["learning_rate"] * hvd.size())
        hvd.broadcast_variables(self.depth_net.variables, root_rank=0)
        hvd.broadcast_variables(self.pose_net.variables, root_rank=0)

        self.ckpt = tf.train.Checkpoint(depth=self.depth_net, pose=self.pose_net, optimizer=self.optimizer)
        self.manager = tf.train.CheckpointManager(self.ckpt, cfg["ckpt_dir"], max_to_keep=3)

    def compute_loss(self, prev, cur, nxt):
        disp = self.depth_net(cur)
        depth = disp_to_depth(disp, self.cfg["min_depth"], self.cfg["max_depth"])
        K = tf.tile(self.K[None], [tf.shape(cur)[0], 1, 1])
        errors = []
        for src in (prev, nxt):
            pose = self.pose_net(tf.concat([cur, src], -1))
            errors.append(photometric_error(cur, inverse_warp(src, depth, pose, K)))
        photo = tf.reduce_mean(tf.reduce_min(tf.stack(errors, 0), 0))
        return photo + self.cfg["smoothness_weight"] * smoothness(disp, cur)

    @tf.function
    def train_step(self, prev, cur, nxt):
        with tf.GradientTape(persistent=True) as tape:
            loss = self.compute_loss(prev, cur, nxt)
        depth_tape = hvd.DistributedGradientTape(tape)
        depth_vars = self.depth_net.trainable_variables
        pose_vars = self.pose_net.trainable_variables
        depth_grads = depth_tape.gradient(loss, depth_vars)
        pose_grads = tape.gradient(loss, pose_vars)
        self.optimizer.apply_gradients(zip(depth_grads + pose_grads, depth_vars + pose_vars))
        return loss

    def fit(self):
        for epoch in range(self.cfg["epochs"]):
            t0 = time.time()
            total = tf.constant(0.0)
            for step, (prev, cur, nxt) in enumerate(self.dataset.take(self.steps_per_epoch)):
                loss = self.train_step(prev, cur, nxt)
                total += loss
                if hvd.rank() == 0 and step % self.cfg["log_every"] == 0:
                    print(f"epoch {epoch} step {step} loss {loss.numpy():.4f}", flush=True)
            mean_loss = hvd.allreduce(total / self.steps_per_epoch, op=hvd.Average)
            if hvd.rank() == 0:
                print(f"epoch {epoch}: mean photometric loss {mean_loss.numpy():.4f} "
                      f"({time.time() - t0:.0f}s)", flush=True)
            self.manager.save(checkpoint_number=epoch)
