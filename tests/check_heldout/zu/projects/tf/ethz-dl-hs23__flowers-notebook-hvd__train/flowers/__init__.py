CLASS_NAMES = ["daisy", "dandelion", "roses", "sunflowers", "tulips"]
