COLUMNS = ["age", "workclass", "fnlwgt", "education", "education_num", "marital_status",
           "occupation", "relationship", "race", "gender", "capital_gain", "capital_loss",
           "hours_per_week", "native_country", "income_bracket"]
NUMERIC = ["age", "education_num", "capital_gain", "capital_loss", "hours_per_week"]
# hashed into a fixed number of buckets (no vocabulary files needed)
CATEGORICAL = {"workclass": 16, "education": 32, "marital_status": 16, "occupation": 32,
               "relationship": 16, "race": 8, "gender": 4, "native_country": 64}
LABEL = "income_bracket"
