"""The models part of the edge: what a request body and a response are.

`request_bodies` (generated) holds the classes a handler's body is, validated by pydantic-core on the schemas of
`compiled_schemas` (generated) through `body_validation`; neither imports pydantic. The pydantic models they are
generated from (`request_models`, `entity_models`) and the response models (`response_models`) describe the API in
its OpenAPI document and are imported only where that is built.

Public: `body`, `body_rules` (generated schemas name its functions), `body_validation`, `entity_models`,
`model_bases`. Internal: `json_schema_patterns`.
The product's own request and response models and the files generated from them are `PRODUCT_MODULES`.
"""

__all__ = ["body", "body_rules", "body_validation", "entity_models", "model_bases"]

# The product's own modules in this package: shipped in the layer, no API (ddbguard's docstring).
PRODUCT_MODULES = ("compiled_schemas", "request_bodies", "request_models", "response_models")
