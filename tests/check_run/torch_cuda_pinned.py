"""A PyTorch trainer written for the `hvdkit check --run` tests (tests/test_check_run_cpu.py).

Written for a GPU node: it pins with torch.cuda.set_device(hvd.local_rank()), moves the model with
.cuda() and each batch with .to("cuda"), and downloads MNIST through torchvision.datasets. Every step
is right. With --crash-at-step it reads an argument it never declared, after that many steps.
"""
import argparse
import os

import torch
import torch.nn.functional as F
import torchvision
import horovod.torch as hvd


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--out", default=".")
    parser.add_argument("--crash-at-step", type=int, default=-1)
    args = parser.parse_args()

    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    torch.manual_seed(0)

    transform = torchvision.transforms.Compose([torchvision.transforms.ToTensor(),
                                                torchvision.transforms.Normalize((0.1307,), (0.3081,))])
    train = torchvision.datasets.MNIST(os.path.join(args.out, "data"), train=True, download=True,
                                       transform=transform)
    sampler = torch.utils.data.distributed.DistributedSampler(train, num_replicas=hvd.size(), rank=hvd.rank())
    loader = torch.utils.data.DataLoader(train, batch_size=32, sampler=sampler)

    model = torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3), torch.nn.ReLU(), torch.nn.Flatten(),
                                torch.nn.Linear(4 * 26 * 26, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size(), momentum=0.9)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    step = 0
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        totals = torch.zeros(2, device="cuda")  # loss sum, samples
        for images, labels in loader:
            images, labels = images.to("cuda"), labels.to("cuda")
            opt.zero_grad()
            loss = F.cross_entropy(model(images), labels)
            loss.backward()
            opt.step()
            step += 1
            if step == args.crash_at_step:
                print(f"learning rate {args.learning_rate}")
            totals += torch.stack([loss.detach() * len(labels), torch.tensor(float(len(labels)))])
        totals = hvd.allreduce(totals, op=hvd.Sum, name="train_loss")
        if hvd.rank() == 0:
            print(f"epoch {epoch}: mean loss over ranks {(totals[0] / totals[1]).item():.4f}")
            torch.save(model.state_dict(), os.path.join(args.out, "model.pt"))


if __name__ == "__main__":
    main()
