"""Entry point: horovod.run starts the workers, each one calls train().

python run_hvd.py --num-proc 4 --tiles /data/inria/tiles_512
"""
import horovod
import tensorflow as tf
import horovod.tensorflow as hvd

from aerialunet.config import get_args


def train(cfg):
    hvd.init()
    gpus = tf.config.list_physical_devices('GPU')
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], 'GPU')
    tf.keras.utils.set_random_seed(cfg.seed)

    from aerialunet.trainer import Trainer
    best = Trainer(cfg).fit()
    if hvd.rank() == 0:
        print('best mIoU %.4f' % best)
    return best


if __name__ == '__main__':
    cfg = get_args()
    horovod.run(train, args=(cfg,), num_proc=cfg.num_proc)
