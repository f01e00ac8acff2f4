import argparse
import collections
import torch
import numpy as np
import horovod.torch as hvd

import tmpl.data_loaders as module_data
import tmpl.model as module_arch
import tmpl.model as module_loss
import tmpl.model as module_metric
from tmpl.parse_config import ConfigParser
from tmpl.trainer import Trainer
from tmpl.utils import prepare_device


# fix random seeds for reproducibility
SEED = 123
torch.manual_seed(SEED)
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
np.random.seed(SEED)


def main(config):
    logger = config.get_logger('train')

    # setup data_loader instances (each rank gets its own DistributedSampler)
    data_loader = config.init_obj('data_loader', module_data,
                                  num_replicas=hvd.size(), rank=hvd.rank())
    valid_data_loader = data_loader.split_validation()

    # build model architecture, then print to console
    model = config.init_obj('arch', module_arch)
    if hvd.rank() == 0:
        logger.info(model)

    # prepare for (multi-device) GPU training
    device = prepare_device(config['n_gpu'])
    model = model.to(device)

    # get function handles of loss and metrics
    criterion = getattr(module_loss, config['loss'])
    metrics = [getattr(module_metric, met) for met in config['metrics']]

    # linear scaling rule: lr in config.json is the single-worker lr
    config['optimizer']['args']['lr'] = config['optimizer']['args']['lr'] * hvd.size()
    trainable_params = filter(lambda p: p.requires_grad, model.parameters())
    optimizer = config.init_obj('optimizer', torch.optim, trainable_params)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    lr_scheduler = config.init_obj('lr_scheduler', torch.optim.lr_scheduler, optimizer)

    trainer = Trainer(model, criterion, metrics, optimizer,
                      config=config,
                      device=device,
                      data_loader=data_loader,
                      valid_data_loader=valid_data_loader,
                      lr_scheduler=lr_scheduler)

    trainer.train()


if __name__ == '__main__':
    hvd.init()
    args = argparse.ArgumentParser(description='PyTorch Template (horovod)')
    args.add_argument('-c', '--config', default=None, type=str,
                      help='config file path (default: None)')
    args.add_argument('-r', '--resume', default=None, type=str,
                      help='path to latest checkpoint (default: None)')
    args.add_argument('-d', '--device', default=None, type=str,
                      help='indices of GPUs to enable (default: all)')

    # custom cli options to modify configuration from default values given in json file.
    CustomArgs = collections.namedtuple('CustomArgs', 'flags type target')
    options = [
        CustomArgs(['--lr', '--learning_rate'], type=float, target='optimizer;args;lr'),
        CustomArgs(['--bs', '--batch_size'], type=int, target='data_loader;args;batch_size')
    ]
    config = ConfigParser.from_args(args, options)
    main(config)
