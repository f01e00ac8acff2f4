from orbit_lite.runner import StandardTrainer, StandardEvaluator
from orbit_lite.controller import Controller
