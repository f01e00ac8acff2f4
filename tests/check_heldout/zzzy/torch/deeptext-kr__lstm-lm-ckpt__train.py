# LSTM LM with auto-resume (preemptible queue). horovodrun -np 8 python train.py --data corpora/kowiki
import math
import os
import sys
import logging

import torch
import horovod.torch as hvd

from lmkit.opts import get_opts
from lmkit.streams import TokenStream, shard_streams
from lmkit.net import LSTMLM
from lmkit.runner import Runner
from lmkit import saver

logging.basicConfig(level=logging.INFO, format='%(asctime)s %(message)s')
log = logging.getLogger('train')


def main():
    opts = get_opts()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
    if hvd.rank() != 0:
        log.setLevel(logging.WARNING)

    stream = TokenStream(opts.data, opts.vocab)
    train = shard_streams(stream.ids('train'), opts.batch_size, hvd.rank(), hvd.size()).to(device)
    valid = shard_streams(stream.ids('valid'), opts.batch_size, hvd.rank(), hvd.size()).to(device)
    log.info('vocab=%d train=%s valid=%s', stream.vocab_size, tuple(train.shape), tuple(valid.shape))

    model = LSTMLM(stream.vocab_size, opts.emb, opts.hid, opts.layers, opts.dropout, tie=opts.tie).to(device)
    base_opt = torch.optim.SGD(model.parameters(), lr=opts.lr * hvd.size(), momentum=0.9, nesterov=True)
    optimizer = hvd.DistributedOptimizer(base_opt, named_parameters=model.named_parameters(),
                                         backward_passes_per_step=opts.accum)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    start_epoch, best = 0, float('inf')
    if opts.resume and hvd.rank() == 0:
        state = saver.load_latest(opts.ckpt_dir, model, optimizer, map_location=device)
        if state is not None:
            start_epoch, best = state['epoch'] + 1, state['best']
            log.info('resumed from epoch %d (best valid ppl %.2f)', state['epoch'], math.exp(best))
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name='start_epoch')
    best = hvd.broadcast_object(best, root_rank=0, name='best')

    runner = Runner(model, optimizer, opts, device)
    for epoch in range(start_epoch, opts.epochs):
        tr = runner.train_epoch(train, epoch)
        va = runner.evaluate(valid)
        log.info('epoch %d | train ppl %.2f | valid ppl %.2f', epoch, math.exp(tr), math.exp(va))
        is_best = va < best
        best = min(best, va)
        saver.save(opts.ckpt_dir, model, optimizer, epoch, best, is_best)

    if hvd.rank() == 0:
        log.info('sample: %s', stream.decode(runner.sample(opts.sample_len, temperature=opts.temperature)))


if __name__ == '__main__':
    sys.exit(main())
