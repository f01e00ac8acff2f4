from .reporter import Reporter
from .search import grid, random_search
