"""Teams, added as a team would add a resource: an entity (`team.py`) and its routes (`routes.py`)."""
