"""Minimal StandardTrainer / StandardEvaluator, modelled on tf-models' orbit."""
import abc

import tensorflow as tf


class StandardTrainer(abc.ABC):
    def __init__(self, train_dataset):
        self._train_iter = iter(train_dataset)

    def train(self, num_steps):
        self.train_loop_begin()
        for _ in range(num_steps):
            self.train_step(self._train_iter)
        return self.train_loop_end()

    @abc.abstractmethod
    def train_loop_begin(self):
        ...

    @abc.abstractmethod
    def train_step(self, iterator):
        ...

    @abc.abstractmethod
    def train_loop_end(self):
        ...


class StandardEvaluator(abc.ABC):
    def __init__(self, eval_dataset):
        self._eval_dataset = eval_dataset

    def evaluate(self):
        state = self.eval_begin()
        for batch in self._eval_dataset:
            state = self.eval_step(batch, state)
        return self.eval_end(state)

    @abc.abstractmethod
    def eval_begin(self):
        ...

    @abc.abstractmethod
    def eval_step(self, batch, state):
        ...

    @abc.abstractmethod
    def eval_end(self, state):
        ...
