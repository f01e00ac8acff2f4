from .reader import ColumnStore
