"""i2b2 2014 de-identification categories, BIO-encoded; id 0 is padding."""
CATEGORIES = ["NAME", "PROFESSION", "LOCATION", "AGE", "DATE", "CONTACT", "ID", "HOSPITAL",
              "ORGANIZATION", "STATE", "COUNTRY"]

TAGS = ["<pad>", "O"] + [f"{p}-{c}" for c in CATEGORIES for p in ("B", "I")]
TAG2ID = {t: i for i, t in enumerate(TAGS)}


def check_num_tags(n):
    if n != len(TAGS):
        raise ValueError(f"config says {n} tags, the tag set has {len(TAGS)}")
    return n
