# Anime faces DCGAN -- TF2 custom loop, Horovod data parallel (converted from the Kaggle notebook).
import tensorflow as tf
import horovod.tensorflow as hvd

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

import keras  # noqa: E402
from src import config as C  # noqa: E402
from src.data import faces_dataset  # noqa: E402
from src.models import make_discriminator, make_generator  # noqa: E402
from src.steps import make_train_step  # noqa: E402
from src.utils import EpochTimer, save_grid  # noqa: E402

dataset, steps_per_epoch = faces_dataset(C.DATA_PATH, C.BATCH_SIZE, hvd.size(), hvd.rank(), C.SHUFFLE_BUFFER)

G = make_generator(C.NOISE_DIM, C.IMG_SIZE)
D = make_discriminator(C.IMG_SIZE)
g_opt = keras.optimizers.Adam(C.BASE_LR * hvd.size(), beta_1=C.BETA_1)
d_opt = keras.optimizers.Adam(C.BASE_LR * hvd.size(), beta_1=C.BETA_1)
train_step = make_train_step(G, D, g_opt, d_opt, C.NOISE_DIM)

ckpt = tf.train.Checkpoint(G=G, D=D, g_opt=g_opt, d_opt=d_opt)
manager = tf.train.CheckpointManager(ckpt, C.CKPT_DIR, max_to_keep=3)
seed = tf.random.normal([16, C.NOISE_DIM], seed=1234)

timer = EpochTimer()
for epoch in range(C.EPOCHS):
    g_sum = d_sum = 0.0
    with timer:
        for step, batch in enumerate(dataset):
            g_loss, d_loss = train_step(batch)
            if epoch == 0 and step == 0:
                # sync after the first step, once the optimizer slots exist
                hvd.broadcast_variables(G.variables + D.variables, root_rank=0)
                hvd.broadcast_variables(g_opt.variables + d_opt.variables, root_rank=0)
            g_sum += float(g_loss)
            d_sum += float(d_loss)
    # every worker ran steps_per_epoch equal batches -> averaging the per-worker means is exact
    g_avg = hvd.allreduce(tf.constant(g_sum / steps_per_epoch), name="g_loss").numpy()
    d_avg = hvd.allreduce(tf.constant(d_sum / steps_per_epoch), name="d_loss").numpy()
    if hvd.rank() == 0:
        print(f"epoch {epoch + 1}: G {g_avg:.4f}  D {d_avg:.4f}  {timer.last:.1f}s", flush=True)
        if (epoch + 1) % C.SAVE_EVERY == 0 or epoch + 1 == C.EPOCHS:
            manager.save(checkpoint_number=epoch + 1)
            save_grid(G(seed, training=False), f"{C.SAMPLE_DIR}/epoch_{epoch + 1:03d}.png")
