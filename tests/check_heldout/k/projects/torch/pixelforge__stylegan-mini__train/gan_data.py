import glob
import os

from PIL import Image
from torch.utils.data import Dataset
from torchvision import transforms


class ImageDir(Dataset):
    EXTS = (".png", ".jpg", ".jpeg")

    def __init__(self, root, resolution):
        self.paths = sorted(p for p in glob.glob(os.path.join(root, "**", "*"), recursive=True)
                            if p.lower().endswith(self.EXTS))
        self.tf = transforms.Compose([
            transforms.Resize(resolution), transforms.CenterCrop(resolution),
            transforms.RandomHorizontalFlip(), transforms.ToTensor(),
            transforms.Normalize([0.5] * 3, [0.5] * 3)])

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        return self.tf(Image.open(self.paths[i]).convert("RGB"))
