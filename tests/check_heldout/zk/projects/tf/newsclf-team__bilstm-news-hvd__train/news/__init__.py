"""news: AG News classification helpers."""
