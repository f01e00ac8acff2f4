import logging
import os

import tensorflow as tf
import horovod.tensorflow as hvd

from textgen.settings import Settings
from textgen.dataset import build_datasets
from textgen.model import TextGenLSTM
from textgen.trainer import Trainer

logging.basicConfig(level=logging.INFO)
logger = logging.getLogger(__name__)


def main():
    hvd.init()
    for gpu in tf.config.experimental.list_physical_devices('GPU'):
        tf.config.experimental.set_memory_growth(gpu, True)
    gpus = tf.config.experimental.list_physical_devices('GPU')
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

    s = Settings.from_env()
    if hvd.rank() == 0:
        logger.info('settings: %s', s)

    train_ds, valid_ds, vocab = build_datasets(s.data_file, s.seq_len, s.batch_size,
                                               num_workers=hvd.size(), worker_index=hvd.rank())
    model = TextGenLSTM(len(vocab), s.embedding_dim, s.rnn_units)
    optimizer = tf.keras.optimizers.Adam(learning_rate=s.learning_rate * hvd.size())

    ckpt_dir = s.model_dir if hvd.rank() == 0 else None
    trainer = Trainer(model, optimizer, s, ckpt_dir=ckpt_dir)
    for epoch in range(s.epochs):
        trainer.fit_epoch(train_ds, epoch)
        val_ppl = trainer.validate(valid_ds)
        if hvd.rank() == 0:
            logger.info('epoch %d valid ppl %.2f', epoch, val_ppl)
            trainer.save(epoch)

    if hvd.rank() == 0:
        print(trainer.generate(vocab, start=s.prompt, n=s.gen_len))


if __name__ == '__main__':
    main()
