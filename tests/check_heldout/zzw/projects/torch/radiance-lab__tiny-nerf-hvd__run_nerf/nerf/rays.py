import numpy as np
import torch


def load_blender_npz(path):
    """images: N x H x W x 3 in [0,1], poses: N x 4 x 4 camera-to-world, focal in pixels."""
    d = np.load(path)
    return d["images"].astype(np.float32), d["poses"].astype(np.float32), float(d["focal"])


def intrinsics(h, w, focal):
    return np.array([[focal, 0, 0.5 * w], [0, focal, 0.5 * h], [0, 0, 1]], dtype=np.float32)


def get_rays(h, w, K, c2w):
    i, j = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32), indexing="xy")
    dirs = np.stack([(i - K[0, 2]) / K[0, 0], -(j - K[1, 2]) / K[1, 1], -np.ones_like(i)], -1)
    rays_d = np.sum(dirs[..., None, :] * c2w[:3, :3], -1)
    rays_o = np.broadcast_to(c2w[:3, -1], rays_d.shape)
    return rays_o, rays_d


def all_rays(images, poses, K):
    n, h, w, _ = images.shape
    out = []
    for k in range(n):
        o, d = get_rays(h, w, K, poses[k])
        out.append(np.concatenate([o, d, images[k]], -1).reshape(-1, 9))
    return torch.from_numpy(np.concatenate(out, 0))


def render_rays(model, rays_o, rays_d, near=2.0, far=6.0, n_samples=64, perturb=True):
    t = torch.linspace(near, far, n_samples, device=rays_o.device).expand(rays_o.shape[0], n_samples)
    if perturb:
        t = t + torch.rand_like(t) * (far - near) / n_samples
    pts = rays_o[:, None] + rays_d[:, None] * t[..., None]
    dirs = (rays_d / rays_d.norm(dim=-1, keepdim=True))[:, None].expand_as(pts)
    rgb, sigma = model(pts.reshape(-1, 3), dirs.reshape(-1, 3))
    rgb, sigma = rgb.view(*pts.shape[:2], 3), sigma.view(*pts.shape[:2])
    delta = torch.cat([t[:, 1:] - t[:, :-1], torch.full_like(t[:, :1], 1e10)], -1)
    alpha = 1.0 - torch.exp(-torch.relu(sigma) * delta)
    trans = torch.cumprod(torch.cat([torch.ones_like(alpha[:, :1]), 1.0 - alpha + 1e-10], -1), -1)[:, :-1]
    return ((alpha * trans)[..., None] * rgb).sum(1)
