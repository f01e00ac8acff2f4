import time
import math

import numpy as np
import torch
import horovod.torch as hvd

from .corpus import get_batch


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h) if isinstance(h, tuple) else [repackage_hidden(v) for v in h]


def train_one_epoch(model, optimizer, criterion, train_data, epoch, args, device):
    model.train()
    total_loss = 0
    start_time = time.time()
    hidden = model.init_hidden(args.batch_size)
    batch, i = 0, 0
    while i < train_data.size(0) - 1 - 1:
        # variable length backprop, as in AWD-LSTM
        bptt = args.bptt if np.random.random() < 0.95 else args.bptt / 2.
        seq_len = max(5, int(np.random.normal(bptt, 5)))
        lr2 = optimizer.param_groups[0]['lr']
        optimizer.param_groups[0]['lr'] = lr2 * seq_len / args.bptt

        data, targets = get_batch(train_data, i, args, seq_len=seq_len)
        data, targets = data.to(device), targets.to(device)
        hidden = repackage_hidden(hidden)
        optimizer.zero_grad()

        output, hidden, rnn_hs, dropped_rnn_hs = model(data, hidden, return_h=True)
        raw_loss = criterion(output, targets)
        loss = raw_loss
        loss = loss + sum(args.alpha * dropped_rnn_h.pow(2).mean() for dropped_rnn_h in dropped_rnn_hs[-1:])
        loss = loss + sum(args.beta * (rnn_h[1:] - rnn_h[:-1]).pow(2).mean() for rnn_h in rnn_hs[-1:])
        loss.backward()

        optimizer.synchronize()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        with optimizer.skip_synchronize():
            optimizer.step()
        optimizer.param_groups[0]['lr'] = lr2

        total_loss += raw_loss.item()
        if batch % args.log_interval == 0 and batch > 0 and hvd.rank() == 0:
            cur_loss = total_loss / args.log_interval
            elapsed = time.time() - start_time
            print('| epoch {:3d} | {:5d}/{:5d} batches | lr {:05.5f} | ms/batch {:5.2f} | '
                  'loss {:5.2f} | ppl {:8.2f}'.format(
                      epoch, batch, len(train_data) // args.bptt, optimizer.param_groups[0]['lr'],
                      elapsed * 1000 / args.log_interval, cur_loss, math.exp(cur_loss)))
            total_loss = 0
            start_time = time.time()
        batch += 1
        i += seq_len


def evaluate(model, criterion, data_source, batch_size, args, device):
    model.eval()
    total_loss = 0.
    hidden = model.init_hidden(batch_size)
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, args.bptt):
            data, targets = get_batch(data_source, i, args)
            data, targets = data.to(device), targets.to(device)
            output, hidden = model(data, hidden)
            total_loss += len(data) * criterion(output, targets).item()
            hidden = repackage_hidden(hidden)
    loss = torch.tensor(total_loss / len(data_source))
    return hvd.allreduce(loss, name='eval_loss').item()
