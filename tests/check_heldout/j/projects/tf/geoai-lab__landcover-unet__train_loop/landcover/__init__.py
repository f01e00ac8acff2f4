CLASSES = ["water", "tree", "grass", "crop", "built", "bare", "snow"]
