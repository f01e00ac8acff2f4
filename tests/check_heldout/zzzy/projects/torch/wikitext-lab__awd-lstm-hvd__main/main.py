import argparse
import time
import math
import os

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd

from awdlm import config, corpus, engine
from awdlm.model import RNNModel

parser = config.build_parser()
args = parser.parse_args()

hvd.init()
np.random.seed(args.seed)
torch.manual_seed(args.seed)
if torch.cuda.is_available():
    if not args.cuda:
        print("WARNING: You have a CUDA device, so you should probably run with --cuda")
    else:
        torch.cuda.set_device(hvd.local_rank())
        torch.cuda.manual_seed(args.seed)
device = torch.device('cuda' if args.cuda else 'cpu')

###############################################################################
# Load data
###############################################################################
fn = 'corpus.{}.data'.format(args.data.strip('/').replace('/', '_'))
corp = corpus.load_corpus(args.data, cache=fn)

eval_batch_size = 10
test_batch_size = 1
train_data = corpus.batchify(corp.train, args.batch_size, args)
val_data = corpus.batchify(corp.valid, eval_batch_size, args)
test_data = corpus.batchify(corp.test, test_batch_size, args)

###############################################################################
# Build the model
###############################################################################
ntokens = len(corp.dictionary)
model = RNNModel(args.model, ntokens, args.emsize, args.nhid, args.nlayers,
                 args.dropout, args.dropouth, args.dropouti, args.tied).to(device)
criterion = nn.CrossEntropyLoss()
params = list(model.parameters())
total_params = sum(x.numel() for x in params)
if hvd.rank() == 0:
    print('Args:', args)
    print('Model total parameters:', total_params)

lr = args.lr * hvd.size()
if args.optimizer == 'sgd':
    optimizer = torch.optim.SGD(params, lr=lr, weight_decay=args.wdecay)
else:
    optimizer = torch.optim.Adam(params, lr=lr, weight_decay=args.wdecay)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                     compression=hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none)

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

###############################################################################
# Training code
###############################################################################
best_val_loss = []
stored_loss = 100000000

try:
    for epoch in range(1, args.epochs + 1):
        epoch_start_time = time.time()
        engine.train_one_epoch(model, optimizer, criterion, train_data, epoch, args, device)
        val_loss = engine.evaluate(model, criterion, val_data, eval_batch_size, args, device)
        if hvd.rank() == 0:
            print('-' * 89)
            print('| end of epoch {:3d} | time: {:5.2f}s | valid loss {:5.2f} | '
                  'valid ppl {:8.2f} | valid bpc {:8.3f}'.format(
                      epoch, (time.time() - epoch_start_time), val_loss, math.exp(val_loss), val_loss / math.log(2)))
            print('-' * 89)

        if val_loss < stored_loss:
            with open(args.save, 'wb') as f:
                torch.save({'model': model.state_dict(), 'epoch': epoch, 'args': args}, f)
            if hvd.rank() == 0:
                print('Saving model (new best validation)')
            stored_loss = val_loss

        if len(best_val_loss) > args.nonmono and val_loss > min(best_val_loss[:-args.nonmono]):
            for g in optimizer.param_groups:
                g['lr'] /= 4.0
            if hvd.rank() == 0:
                print('Dividing learning rate by 4, now', optimizer.param_groups[0]['lr'])
        best_val_loss.append(val_loss)

except KeyboardInterrupt:
    if hvd.rank() == 0:
        print('-' * 89)
        print('Exiting from training early')

# Load the best saved model.
with open(args.save, 'rb') as f:
    state = torch.load(f, weights_only=False)
model.load_state_dict(state['model'])

test_loss = engine.evaluate(model, criterion, test_data, test_batch_size, args, device)
if hvd.rank() == 0:
    print('=' * 89)
    print('| End of training | test loss {:5.2f} | test ppl {:8.2f} | test bpc {:8.3f}'.format(
        test_loss, math.exp(test_loss), test_loss / math.log(2)))
    print('=' * 89)
