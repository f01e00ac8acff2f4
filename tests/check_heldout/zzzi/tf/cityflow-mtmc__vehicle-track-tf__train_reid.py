"""Vehicle re-ID feature extractor for multi-camera tracking (AI City Track 3).

    horovodrun -np 4 python train_reid.py configs/reid.ini
"""
import math
import os
import sys

import tensorflow as tf
import horovod.tensorflow as hvd

from mtmc.config import Cfg
from mtmc.dataset import read_label_xml, make_dataset
from mtmc.backbone import ReIDNet
from mtmc.evaluation import embed_all, cmc_map


def setup_devices():
    for gpu in tf.config.list_physical_devices('GPU'):
        tf.config.experimental.set_memory_growth(gpu, True)


def train(cfg):
    hvd.init()
    setup_devices()
    tf.random.set_seed(cfg.seed + hvd.rank())   # different augmentation stream per worker

    paths, vids, _ = read_label_xml(cfg.root, 'train_label.xml', 'image_train')
    remap = {v: i for i, v in enumerate(sorted(set(vids)))}
    labels = [remap[v] for v in vids]
    train_ds = make_dataset(paths, labels, cfg.size, True, cfg.batch_size, hvd.rank(), hvd.size())
    iters = len(paths) // (cfg.batch_size * hvd.size())

    qp, qv, qc = read_label_xml(cfg.root, 'query_label.xml', 'image_query')
    gp, gv, gc = read_label_xml(cfg.root, 'test_label.xml', 'image_test')
    q_ds = make_dataset(qp, (qv, qc), cfg.size, False, 128, hvd.rank(), hvd.size())
    g_ds = make_dataset(gp, (gv, gc), cfg.size, False, 128, hvd.rank(), hvd.size())

    model = ReIDNet(len(remap), cfg.weights, cfg.size)
    peak = cfg.base_lr * hvd.size()
    total = iters * cfg.epochs

    def lr_fn(it):
        if it < cfg.warmup_iters:
            return peak * (it + 1) / cfg.warmup_iters
        return 0.5 * peak * (1 + math.cos(math.pi * (it - cfg.warmup_iters) / max(1, total - cfg.warmup_iters)))

    lr = tf.Variable(lr_fn(0), trainable=False, dtype=tf.float32)
    opt = tf.keras.optimizers.SGD(learning_rate=lr, momentum=0.9, nesterov=True)
    ce = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, label_smoothing=0.1)

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            feat, logits = model(x, training=True)
            loss = ce(y, logits) + 5e-4 * tf.add_n([tf.nn.l2_loss(w) for w in model.trainable_weights])
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    it = 0
    data = iter(train_ds)
    for epoch in range(cfg.epochs):
        for _ in range(iters):
            lr.assign(lr_fn(it))
            x, y = next(data)
            loss = step(x, y)
            it += 1
        if hvd.rank() == 0:
            tf.print('epoch', epoch, 'loss', loss, 'lr', lr)
            ckpt.write(os.path.join(cfg.out_dir, f'reid_ep{epoch:02d}'))
        if (epoch + 1) % 4 == 0:
            cmc, mAP = cmc_map(embed_all(model, q_ds, 'q'), embed_all(model, g_ds, 'g'))
            if hvd.rank() == 0:
                print(f'[eval] epoch {epoch}: mAP {mAP:.4f} ' + ' '.join(f'{k} {v:.4f}' for k, v in cmc.items()))


if __name__ == '__main__':
    train(Cfg(sys.argv[1] if len(sys.argv) > 1 else 'configs/reid.ini'))
