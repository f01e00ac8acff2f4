import torch
import torch.nn as nn


class LockedDropout(nn.Module):
    def forward(self, x, dropout=0.5):
        if not self.training or not dropout:
            return x
        m = x.data.new(1, x.size(1), x.size(2)).bernoulli_(1 - dropout)
        mask = m / (1 - dropout)
        return mask.expand_as(x) * x


class RNNModel(nn.Module):
    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5, dropouth=0.5, dropouti=0.5, tie_weights=False):
        super(RNNModel, self).__init__()
        self.lockdrop = LockedDropout()
        self.encoder = nn.Embedding(ntoken, ninp)
        cls = nn.LSTM if rnn_type == 'LSTM' else nn.GRU
        self.rnns = nn.ModuleList([
            cls(ninp if l == 0 else nhid, nhid if l != nlayers - 1 else (ninp if tie_weights else nhid), 1)
            for l in range(nlayers)])
        self.decoder = nn.Linear(ninp if tie_weights else nhid, ntoken)
        if tie_weights:
            self.decoder.weight = self.encoder.weight
        self.rnn_type, self.ninp, self.nhid, self.nlayers = rnn_type, ninp, nhid, nlayers
        self.dropout, self.dropouti, self.dropouth = dropout, dropouti, dropouth
        self.tie_weights = tie_weights

    def forward(self, input, hidden, return_h=False):
        emb = self.lockdrop(self.encoder(input), self.dropouti)
        raw_output = emb
        new_hidden, raw_outputs, outputs = [], [], []
        for l, rnn in enumerate(self.rnns):
            raw_output, new_h = rnn(raw_output, hidden[l])
            new_hidden.append(new_h)
            raw_outputs.append(raw_output)
            if l != self.nlayers - 1:
                raw_output = self.lockdrop(raw_output, self.dropouth)
                outputs.append(raw_output)
        output = self.lockdrop(raw_output, self.dropout)
        outputs.append(output)
        result = self.decoder(output.view(-1, output.size(2)))
        if return_h:
            return result, new_hidden, raw_outputs, outputs
        return result, new_hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters()).data
        out = []
        for l in range(self.nlayers):
            n = self.nhid if l != self.nlayers - 1 else (self.ninp if self.tie_weights else self.nhid)
            if self.rnn_type == 'LSTM':
                out.append((weight.new_zeros(1, bsz, n), weight.new_zeros(1, bsz, n)))
            else:
                out.append(weight.new_zeros(1, bsz, n))
        return out
