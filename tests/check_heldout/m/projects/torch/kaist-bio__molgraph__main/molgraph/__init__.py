"""Message-passing networks for molecular property regression."""
