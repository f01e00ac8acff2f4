"""When hvdkit's ResNets compute a convolution as one matrix product (im2col) instead of the library's kernel.

Framework-free: the rule both hvdkit.models.resnet_torch and hvdkit.models.resnet_tf follow.

A convolution whose output has at most IM2COL_MAX_PIXELS pixels per image (ResNet34's last stage at 64 px:
2 x 2) is computed by gathering every output pixel's input patch into one row (k*k*C_in values; the padding's
zeros included) and multiplying the (images x pixels, k*k*C_in) patch matrix by the (k*k*C_in, C_out) weight
matrix. Forward and backward are then three large matrix products plus copies, where the libraries' direct
convolution kernels split the work over a 2 x 2 image and reach a fraction of the CPU's matmul rate.
One such convolution, forward and backward (batch 16, 2 threads, 512 -> 512 channels, 3 x 3, 2 x 2 output; a
2-core AMD EPYC without AVX-512): PyTorch's oneDNN kernel 43.6 ms against 16.8 ms as a matrix product,
TensorFlow's kernel 145 ms against 15.7 ms. At 4 x 4 outputs PyTorch's kernel was as fast or faster, so the
rule stops at 4 pixels. The whole step's difference is in benchmarks/resnet_bench.py's record (variant
`library_conv`: every convolution by the framework's kernel).

The weights keep the layer's own shape and variable, so checkpoints, Horovod's broadcast and allreduce, and
the other framework's port of the model see no difference; the result equals the kernel's to float32 rounding
(the sums are taken in another order).
"""

IM2COL_MAX_PIXELS = 4


def use_im2col(out_height, out_width):
    """True when a convolution with this output size (per image) goes through the matrix product."""
    return out_height * out_width <= IM2COL_MAX_PIXELS


def out_size(size, kernel, stride, padding):
    """Output side of a convolution (no dilation): floor((size + 2 * padding - kernel) / stride) + 1."""
    return (size + 2 * padding - kernel) // stride + 1
