from .unet3d import UNet3D
