"""The team's routes: create, get, update and delete, served by the generic operations."""

from examples.teams.team import TEAM
from routes import crud_routes

# POST /teams, GET|PATCH|DELETE /teams/{teamId}; their walk-through steps follow the product's. In the product the
# handlers are teams.create_team, ... (functions/teams/); here they live beside the example.
TEAM_ROUTES = crud_routes(TEAM, "/teams", package="examples.teams")
