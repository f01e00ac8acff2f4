"""DnCNN-style blind Gaussian denoising in Keras."""
