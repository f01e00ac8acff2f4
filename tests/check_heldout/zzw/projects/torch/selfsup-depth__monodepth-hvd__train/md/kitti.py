import glob
import os

import numpy as np
import torch
from torch.utils.data import Dataset

# normalised KITTI intrinsics (fx / W, fy / H, cx / W, cy / H), as in the original monodepth2 loader
KITTI_K = np.array([[0.58, 0, 0.5, 0], [0, 1.92, 0.5, 0], [0, 0, 1, 0], [0, 0, 0, 1]], dtype=np.float32)


class KITTITriplets(Dataset):
    """Each .npz holds frames -1, 0, +1 (3 x H x W x 3 uint8) and, for val, a sparse `depth` map."""

    def __init__(self, root, split, height, width):
        self.files = sorted(glob.glob(os.path.join(root, split, "*.npz")))
        K = KITTI_K.copy()
        K[0, :] *= width
        K[1, :] *= height
        self.K, self.inv_K = torch.from_numpy(K), torch.from_numpy(np.linalg.pinv(K))

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        d = np.load(self.files[i])
        frames = torch.from_numpy(d["frames"]).float().permute(0, 3, 1, 2) / 255.0
        item = {("color", -1): frames[0], ("color", 0): frames[1], ("color", 1): frames[2],
                "K": self.K, "inv_K": self.inv_K}
        if "depth" in d:
            item["depth_gt"] = torch.from_numpy(d["depth"]).float()[None]
        return item
