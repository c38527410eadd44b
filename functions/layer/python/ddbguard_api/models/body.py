"""`Body`: the base of every request body and query class (ddbguard_api.models.request_bodies, generated).

A body class is what a handler's `request.body` is, at runtime and for the type checker alike. pydantic-core builds
its instances (ddbguard_api.models.body_validation): it creates the object without calling `__init__` and sets its
`__dict__` and the three bookkeeping attributes below, hence these slots. A generated class adds its fields as
annotations and a keyword-only `__init__`, so code and tests can build one too.
"""

from __future__ import annotations

__all__ = ["Body"]


class Body:
    """A body or query as pydantic-core validated it: its fields as attributes, `model_dump()` as a dict."""

    __slots__ = ("__dict__", "__pydantic_extra__", "__pydantic_fields_set__", "__pydantic_private__")

    def model_dump(self) -> dict[str, object]:
        """The fields as plain values (nested bodies as dicts), as pydantic's `model_dump` gives them."""
        return {name: _dumped(value) for name, value in self.__dict__.items()}

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.__dict__ == self.__dict__

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(self.__dict__.items())))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in self.__dict__.items())
        return f"{type(self).__name__}({fields})"


def _dumped(value: object) -> object:
    if isinstance(value, Body):
        return value.model_dump()
    if isinstance(value, list):
        return [_dumped(item) for item in value]
    return value
