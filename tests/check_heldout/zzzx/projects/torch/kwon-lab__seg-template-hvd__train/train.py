import argparse
import collections
import random

import numpy as np
import torch
import horovod.torch as hvd

import seg.data_loaders as module_data
import seg.losses as module_loss
import seg.models as module_arch
from seg.config_parser import ConfigParser
from seg.trainer import SegTrainer


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def main(config):
    logger = config.get_logger('train')
    set_seed(config['seed'])

    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device('cuda')
    else:
        device = torch.device('cpu')

    data_loader = config.init_obj('data_loader', module_data,
                                  num_replicas=hvd.size(), rank=hvd.rank())
    valid_data_loader = data_loader.split_validation()

    model = config.init_obj('arch', module_arch).to(device)
    if hvd.rank() == 0:
        logger.info(model)

    criterion = config.init_obj('loss', module_loss)

    trainable_params = filter(lambda p: p.requires_grad, model.parameters())
    optimizer = config.init_obj('optimizer', torch.optim, trainable_params)
    compression = hvd.Compression.fp16 if config['trainer'].get('fp16_allreduce') else hvd.Compression.none
    optimizer = hvd.DistributedOptimizer(optimizer,
                                         named_parameters=model.named_parameters(),
                                         compression=compression)
    lr_scheduler = config.init_obj('lr_scheduler', torch.optim.lr_scheduler, optimizer)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    trainer = SegTrainer(model, criterion, optimizer,
                         config=config,
                         device=device,
                         data_loader=data_loader,
                         valid_data_loader=valid_data_loader,
                         lr_scheduler=lr_scheduler)
    trainer.train()


if __name__ == '__main__':
    hvd.init()
    torch.set_num_threads(1)

    args = argparse.ArgumentParser(description='seg-template (horovod)')
    args.add_argument('-c', '--config', default='configs/unet_small.json', type=str,
                      help='config file path')
    args.add_argument('-r', '--resume', default=None, type=str,
                      help='path to latest checkpoint (default: None)')

    CustomArgs = collections.namedtuple('CustomArgs', 'flags type target')
    options = [
        CustomArgs(['--lr', '--learning_rate'], type=float, target='optimizer;args;lr'),
        CustomArgs(['--bs', '--batch_size'], type=int, target='data_loader;args;batch_size'),
        CustomArgs(['--ep', '--epochs'], type=int, target='trainer;epochs'),
    ]
    config = ConfigParser.from_args(args, options)
    main(config)
