"""The models part of the edge: what a request body and a response are.

`request_bodies` (generated) holds the classes a handler's body is, validated by pydantic-core on the schemas of
`compiled_schemas` (generated) through `body_validation`; neither imports pydantic. The pydantic models they are
generated from (`request_models`, `entity_models`) and the response models (`response_models`) describe the API in
its OpenAPI document and are imported only where that is built.
"""
