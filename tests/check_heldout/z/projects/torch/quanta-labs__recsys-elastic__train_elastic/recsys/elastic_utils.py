"""Elastic-state helpers shared by train_elastic.py and the (older) finetune_elastic.py."""
import os

import torch

import horovod.torch as hvd


def build_state(model, optimizer, train_sampler, *reset_callbacks):
    # TorchState.sync() (run by hvd.elastic.run before the first call and after every reset)
    # broadcasts model, optimizer and sampler state from rank 0.
    state = hvd.elastic.TorchState(model=model, optimizer=optimizer, train_sampler=train_sampler,
                                   epoch=0, batch=0)
    state.register_reset_callbacks(list(reset_callbacks))
    return state


def save_on_rank0(model, path):
    if hvd.rank() != 0:
        return
    tmp = path + ".tmp"
    torch.save(model.state_dict(), tmp)
    os.replace(tmp, path)
