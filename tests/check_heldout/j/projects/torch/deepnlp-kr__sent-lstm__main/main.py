# Sentiment classification (IMDB-style tsv) with a bi-LSTM, distributed with Horovod.
# usage: horovodrun -np 4 python main.py --train data/train.tsv --test data/test.tsv
import argparse
import time

import torch
import torch.nn.functional as F
import torch.optim as optim
import torch.utils.data.distributed
import horovod.torch as hvd

from textclf.data import build_datasets, pad_collate
from textclf.model import LSTMClassifier
from textclf.train_utils import adjust_learning_rate, metric_average, save_model

parser = argparse.ArgumentParser(description="bi-LSTM sentiment classifier")
parser.add_argument("--train", type=str, default="data/train.tsv")
parser.add_argument("--test", type=str, default="data/test.tsv")
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--test-batch-size", type=int, default=256)
parser.add_argument("--epochs", type=int, default=12)
parser.add_argument("--lr", type=float, default=0.05)
parser.add_argument("--lr-step", type=int, default=5)
parser.add_argument("--momentum", type=float, default=0.9)
parser.add_argument("--max-vocab", type=int, default=30000)
parser.add_argument("--no-cuda", action="store_true", default=False)
parser.add_argument("--seed", type=int, default=42)
parser.add_argument("--save", type=str, default="model/lstm.pt")
args = parser.parse_args()
args.cuda = not args.no_cuda and torch.cuda.is_available()

hvd.init()
torch.manual_seed(args.seed)
if args.cuda:
    torch.cuda.set_device(hvd.local_rank())
    torch.cuda.manual_seed(args.seed)
torch.set_num_threads(1)

train_dataset, test_dataset, vocab = build_datasets(args.train, args.test, args.max_vocab)
train_sampler = torch.utils.data.distributed.DistributedSampler(
    train_dataset, num_replicas=hvd.size(), rank=hvd.rank())
train_loader = torch.utils.data.DataLoader(
    train_dataset, batch_size=args.batch_size, sampler=train_sampler, collate_fn=pad_collate)
test_sampler = torch.utils.data.distributed.DistributedSampler(
    test_dataset, num_replicas=hvd.size(), rank=hvd.rank())
test_loader = torch.utils.data.DataLoader(
    test_dataset, batch_size=args.test_batch_size, sampler=test_sampler, collate_fn=pad_collate)

model = LSTMClassifier(len(vocab))
if args.cuda:
    model.cuda()

# Horovod: scale learning rate by the number of GPUs.
optimizer = optim.SGD(model.parameters(), lr=args.lr * hvd.size(), momentum=args.momentum)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def train(epoch):
    model.train()
    train_sampler.set_epoch(epoch)
    lr = adjust_learning_rate(optimizer, epoch, args)
    start = time.time()
    for batch_idx, (ids, lengths, target) in enumerate(train_loader):
        if args.cuda:
            ids, target = ids.cuda(), target.cuda()
        optimizer.zero_grad()
        loss = F.cross_entropy(model(ids, lengths), target)
        loss.backward()
        # Horovod: clip the averaged gradients, not the local ones
        optimizer.synchronize()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        with optimizer.skip_synchronize():
            optimizer.step()
        if batch_idx % 50 == 0 and hvd.rank() == 0:
            print("epoch {} [{}/{}] lr {:.4f} loss {:.4f} ({:.0f}s)".format(
                epoch, batch_idx * len(ids), len(train_sampler), lr, loss.item(), time.time() - start))


def test():
    model.eval()
    test_loss, correct = 0.0, 0.0
    with torch.no_grad():
        for ids, lengths, target in test_loader:
            if args.cuda:
                ids, target = ids.cuda(), target.cuda()
            output = model(ids, lengths)
            test_loss += F.cross_entropy(output, target, reduction="sum").item()
            correct += output.argmax(1).eq(target).sum().item()
    test_loss = metric_average(test_loss / len(test_sampler), "avg_loss")
    test_accuracy = metric_average(correct / len(test_sampler), "avg_accuracy")
    if hvd.rank() == 0:
        print("test: loss {:.4f}, accuracy {:.2f}%".format(test_loss, 100.0 * test_accuracy))
    return test_accuracy


best = 0.0
for epoch in range(1, args.epochs + 1):
    train(epoch)
    acc = test()
    if hvd.rank() == 0 and acc > best:
        best = acc
        save_model(model, vocab, args.save)
