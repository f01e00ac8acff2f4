_base_ = ['_base_/default_runtime.py']

model = dict(type='ResNet18', num_classes=10)
data = dict(
    samples_per_gpu=128,
    workers_per_gpu=2,
    train=dict(type='CIFAR10', data_prefix='data/cifar10'),
    val=dict(type='CIFAR10', data_prefix='data/cifar10', test_mode=True))
optimizer = dict(type='SGD', lr=0.1, momentum=0.9, weight_decay=5e-4, nesterov=True)
lr_config = dict(warmup_iters=200)
total_epochs = 200
