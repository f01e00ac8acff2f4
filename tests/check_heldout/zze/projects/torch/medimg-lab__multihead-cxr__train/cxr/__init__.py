FINDINGS = ["atelectasis", "cardiomegaly", "consolidation", "edema", "effusion", "pneumonia", "pneumothorax"]
