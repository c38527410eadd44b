"""The team's routes: create, get, change and delete, served by the generic operations (no handler to write)."""

from examples.teams.team import TEAM
from routes import crud_routes

# POST /teams, GET|PATCH|DELETE /teams/{teamId}; their walk-through steps follow the product's.
TEAM_ROUTES = crud_routes(TEAM, "/teams")
