import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


class DummyCXR(Dataset):
    def __init__(self, n, size, n_classes):
        g = torch.Generator().manual_seed(0)
        self.x = torch.randn(n, 3, size, size, generator=g)
        self.y = (torch.rand(n, n_classes, generator=g) > 0.8).float()

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def build_loaders(opt):
    if opt.dummy:
        tr, va = DummyCXR(64, opt.img_size, opt.n_classes), DummyCXR(16, opt.img_size, opt.n_classes)
    else:
        from torchvision import datasets, transforms as T
        tfm = T.Compose([T.Resize(opt.img_size), T.CenterCrop(opt.img_size), T.ToTensor()])
        tr = datasets.ImageFolder(f"{opt.data_root}/train", tfm)
        va = datasets.ImageFolder(f"{opt.data_root}/val", tfm)
    tr_s = DistributedSampler(tr, num_replicas=hvd.size(), rank=hvd.rank())
    va_s = DistributedSampler(va, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    return (DataLoader(tr, batch_size=opt.batch_size, sampler=tr_s, num_workers=2),
            DataLoader(va, batch_size=opt.batch_size, sampler=va_s, num_workers=2),
            tr_s)
