"""The projects API: Powertools routes in one function; ddbguard guards every write."""

from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.utilities.typing import LambdaContext

from ddbguard.guards import entity_operations as projects
from ddbguard_api.resolver import Guard
from service.project import PROJECT

app = APIGatewayRestResolver()
guard = Guard(app)


@app.post("/projects")
def create_project() -> Response[str]:
    item = projects.create(PROJECT, guard.caller(), guard.create_values(PROJECT), identity=guard.identity())
    return guard.created(item, f"/projects/{item['projectId']}")


@app.get("/projects/<project_id>")
def get_project(project_id: str) -> Response[str]:
    return guard.ok(projects.get(PROJECT, project_id, guard.caller()))


@app.patch("/projects/<project_id>")
def update_project(project_id: str) -> Response[str]:
    values, version = guard.update_values(PROJECT), guard.expected_version()
    item = projects.update(PROJECT, project_id, guard.caller(), version, values, identity=guard.identity())
    return guard.ok(item)


@app.delete("/projects/<project_id>")
def delete_project(project_id: str) -> Response[str]:
    projects.delete(PROJECT, project_id, guard.caller(), guard.expected_version(), identity=guard.identity())
    return guard.no_content()


def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return app.resolve(event, context)
