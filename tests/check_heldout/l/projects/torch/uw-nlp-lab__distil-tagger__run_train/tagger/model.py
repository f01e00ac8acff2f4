from transformers import AutoConfig, AutoModelForTokenClassification


def build_tagger(name_or_path, labels, dropout=0.1):
    config = AutoConfig.from_pretrained(
        name_or_path,
        num_labels=len(labels),
        id2label=dict(enumerate(labels)),
        label2id={l: i for i, l in enumerate(labels)},
        hidden_dropout_prob=dropout,
    )
    return AutoModelForTokenClassification.from_pretrained(name_or_path, config=config)
