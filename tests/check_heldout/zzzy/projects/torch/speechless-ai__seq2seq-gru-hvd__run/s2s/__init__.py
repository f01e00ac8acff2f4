"""seq2seq with GRU + Bahdanau attention, horovod data parallel."""
