"""The bases of the API's pydantic models: strict request bodies, lenient responses."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["ResponseModel", "StrictModel", "Timestamp"]

Timestamp = str  # ISO 8601 UTC with milliseconds, e.g. 2026-12-03T06:30:39.300Z


class StrictModel(BaseModel):
    """A request body or query: no coercion, no unknown fields."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, defer_build=True)


class ResponseModel(BaseModel):
    """A response: extra fields allowed (additionalProperties), since clients must ignore what they do not know."""

    model_config = ConfigDict(extra="allow")
