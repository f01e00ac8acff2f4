"""GC-Net (Kendall et al. 2017) in Keras 3: end-to-end stereo regression with a 3D cost volume."""
