import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

CIFAR_MEAN = (0.4914, 0.4822, 0.4465)
CIFAR_STD = (0.2470, 0.2435, 0.2616)


class TwoCropsTransform:
    """Return two independently augmented views of the same image."""

    def __init__(self, base):
        self.base = base

    def __call__(self, x):
        return self.base(x), self.base(x)


def simclr_augment(size=32, s=0.5):
    color = transforms.ColorJitter(0.8 * s, 0.8 * s, 0.8 * s, 0.2 * s)
    return transforms.Compose([
        transforms.RandomResizedCrop(size, scale=(0.2, 1.0)),
        transforms.RandomHorizontalFlip(),
        transforms.RandomApply([color], p=0.8),
        transforms.RandomGrayscale(p=0.2),
        transforms.ToTensor(),
        transforms.Normalize(CIFAR_MEAN, CIFAR_STD),
    ])


def build_pretrain_loader(root, batch_size, workers, size=32):
    dataset = datasets.CIFAR10(root, train=True, download=False,
                               transform=TwoCropsTransform(simclr_augment(size)))
    # one shard per GPU
    sampler = DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.local_rank(),
                                 shuffle=True, drop_last=True)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler,
                        num_workers=workers, pin_memory=True, drop_last=True)
    return loader, sampler
