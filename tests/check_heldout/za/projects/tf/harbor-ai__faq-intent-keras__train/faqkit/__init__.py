"""FAQ intent routing model: maps a customer question to one of the curated answer ids."""
