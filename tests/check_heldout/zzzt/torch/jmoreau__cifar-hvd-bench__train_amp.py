# cifar10 resnet w/ horovod + amp + grad accumulation
# horovodrun -np 4 python train_amp.py --accum-steps 4 --fp16-allreduce
import argparse, os, time
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
import torch.utils.data.distributed
from torchvision import datasets, transforms, models
import horovod.torch as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--batch-size', type=int, default=128)
parser.add_argument('--epochs', type=int, default=30)
parser.add_argument('--lr', type=float, default=0.05)
parser.add_argument('--accum-steps', type=int, default=4, help='micro batches per optimizer step')
parser.add_argument('--amp', type=int, default=1)
parser.add_argument('--fp16-allreduce', action='store_true')
parser.add_argument('--data-dir', default='./data')
parser.add_argument('--save', default='ckpt/cifar_amp.pt')
parser.add_argument('--fake', action='store_true', help='random tensors instead of cifar')
args = parser.parse_args()

hvd.init()
torch.manual_seed(0)
device = 'cuda'
torch.backends.cudnn.benchmark = True

normalize = transforms.Normalize((0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616))
if args.fake:
    train_ds = torch.utils.data.TensorDataset(torch.randn(512, 3, 32, 32), torch.randint(0, 10, (512,)))
    test_ds = torch.utils.data.TensorDataset(torch.randn(128, 3, 32, 32), torch.randint(0, 10, (128,)))
else:
    # only local rank 0 downloads
    if hvd.local_rank() != 0:
        hvd.barrier()
    train_ds = datasets.CIFAR10(args.data_dir, train=True, download=True, transform=transforms.Compose([
        transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(), transforms.ToTensor(), normalize]))
    test_ds = datasets.CIFAR10(args.data_dir, train=False, download=True,
                               transform=transforms.Compose([transforms.ToTensor(), normalize]))
    if hvd.local_rank() == 0:
        hvd.barrier()

train_sampler = torch.utils.data.distributed.DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
train_loader = torch.utils.data.DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler,
                                           num_workers=2, pin_memory=True, drop_last=True)
test_sampler = torch.utils.data.distributed.DistributedSampler(test_ds, num_replicas=hvd.size(), rank=hvd.rank(),
                                                               shuffle=False)
test_loader = torch.utils.data.DataLoader(test_ds, batch_size=256, sampler=test_sampler)

model = models.resnet18(num_classes=10)
model.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
model.maxpool = nn.Identity()
model = model.to(device)

optimizer = optim.SGD(model.parameters(), lr=args.lr * hvd.size(), momentum=0.9, weight_decay=5e-4, nesterov=True)
compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(), compression=compression)
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)
scaler = torch.cuda.amp.GradScaler(enabled=bool(args.amp))
sched = optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)


def metric_avg(val, name):
    return hvd.allreduce(torch.tensor(val), name=name).item()


for epoch in range(args.epochs):
    model.train()
    train_sampler.set_epoch(epoch)
    t0 = time.time()
    optimizer.zero_grad()
    for i, (x, y) in enumerate(train_loader):
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        with torch.cuda.amp.autocast(enabled=bool(args.amp)):
            loss = F.cross_entropy(model(x), y) / args.accum_steps
        scaler.scale(loss).backward()
        if (i + 1) % args.accum_steps == 0:
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            nn.utils.clip_grad_norm_(model.parameters(), 2.0)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
        if i % 50 == 0 and hvd.rank() == 0:
            el = time.time() - t0
            print('ep {} it {} loss {:.4f} {:.0f} img/s per gpu, {:.0f} img/s total'.format(
                epoch, i, loss.item() * args.accum_steps, (i + 1) * args.batch_size / el,
                (i + 1) * args.batch_size * hvd.size() / el))
    sched.step()

    model.eval()
    correct, n = 0., 0.
    with torch.no_grad():
        for x, y in test_loader:
            x, y = x.to(device), y.to(device)
            correct += (model(x).argmax(1) == y).sum().item()
            n += y.numel()
    acc = metric_avg(correct / n, 'test_acc')
    if hvd.rank() == 0:
        print('epoch {} test acc {:.4f}'.format(epoch, acc))
        os.makedirs(os.path.dirname(args.save), exist_ok=True)
        torch.save({'model': model.state_dict(), 'epoch': epoch}, args.save)
