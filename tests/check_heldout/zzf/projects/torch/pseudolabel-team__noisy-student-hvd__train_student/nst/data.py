import os

from PIL import Image
import horovod.torch as hvd
from torch.utils.data import ConcatDataset, DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

IMG = 96
noisy_tf = transforms.Compose([transforms.RandomResizedCrop(IMG, scale=(0.5, 1.0)), transforms.RandomHorizontalFlip(),
                               transforms.ColorJitter(0.4, 0.4, 0.4), transforms.ToTensor()])
clean_tf = transforms.Compose([transforms.Resize(IMG), transforms.CenterCrop(IMG), transforms.ToTensor()])


class ImageList(Dataset):
    def __init__(self, paths, labels=None, transform=clean_tf):
        self.paths, self.labels, self.transform = list(paths), labels, transform

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        img = self.transform(Image.open(self.paths[i]).convert("RGB"))
        return (img, self.labels[i]) if self.labels is not None else (img, i)


def unlabeled_files(root):
    folder = os.path.join(root, "unlabeled")
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith((".jpg", ".png")))


def sharded_loader(ds, batch_size, shuffle, drop_last=False):
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=shuffle)
    return DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=4, drop_last=drop_last)


def labeled_set(root, split, transform):
    return datasets.ImageFolder(os.path.join(root, split), transform=transform)


def student_loader(root, pseudo_paths, pseudo_labels, batch_size):
    """Labelled train split + this round's pseudo-labelled images, noisy augmentation."""
    train = labeled_set(root, "train", noisy_tf)
    pseudo = ImageList(pseudo_paths, pseudo_labels, transform=noisy_tf)
    return sharded_loader(ConcatDataset([train, pseudo]), batch_size, shuffle=True, drop_last=True)
