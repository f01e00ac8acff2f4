import sys
import tensorflow as tf
import horovod.tensorflow as hvd

from tpl.utils import get_args, process_config, create_dirs
from tpl.data_loader import MnistTFRecordLoader
from tpl.models import ConvNet
from tpl.trainer import ConvNetTrainer
from tpl.logger import Logger


def main():
    # capture the config path from the run arguments
    # then process the json configuration file
    try:
        args = get_args()
        config = process_config(args.config)
    except Exception as e:
        print("missing or invalid arguments: %s" % e)
        sys.exit(1)

    hvd.init()
    tf.random.set_seed(config.seed)

    # create the experiments dirs (only once)
    if hvd.rank() == 0:
        create_dirs([config.summary_dir, config.checkpoint_dir])

    data = MnistTFRecordLoader(config, num_shards=hvd.size(), index=hvd.rank())
    model = ConvNet(config)
    logger = Logger(config, enabled=hvd.rank() == 0)

    # bigger global batch -> bigger lr
    config.learning_rate = config.learning_rate * hvd.size()
    optimizer = tf.keras.optimizers.Adam(config.learning_rate)

    trainer = ConvNetTrainer(model, data, optimizer, config, logger)
    trainer.train()


if __name__ == '__main__':
    main()
