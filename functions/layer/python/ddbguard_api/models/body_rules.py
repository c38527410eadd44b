"""The rules of request bodies that are Python code: plain functions, so the generated core schemas can name them
(ddbguard_api.models.compiled_schemas) and pydantic-core runs them without pydantic. Each raises a ValueError or a
`PydanticCustomError`, which pydantic-core turns into a 422 field problem.

Body rules are decided with the body: before If-Match and before an Idempotency-Key is looked at, so the same body
gets the same answer on every execution environment.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ddbguard.limits import shows_something

if TYPE_CHECKING:
    from pydantic_core.core_schema import ValidationInfo

__all__ = ["different_accounts", "something_to_update", "visible_text"]


def something_to_update[B](body: B) -> B:
    """An update body's rule: at least one field sent (not null)."""
    sent = vars(body)
    if all(value is None for value in sent.values()):
        raise ValueError(f"send at least one of {', '.join(sent)}")
    return body


def visible_text(value: str) -> str:
    """A text field's rule: at least one character a person sees (`ddbguard.limits.shows_something`)."""
    from pydantic_core import PydanticCustomError  # loaded with the validator by now

    if not shows_something(value):
        raise PydanticCustomError("invisible_text", "Show at least one visible character.")
    return value


def different_accounts(to_account_id: str, info: ValidationInfo) -> str:
    """A transfer's rule: the receiving account is not the sending one."""
    from pydantic_core import PydanticCustomError  # loaded with the validator by now

    if info.data.get("fromAccountId") == to_account_id:
        raise PydanticCustomError("same_account", "A transfer needs two different accounts.")
    return to_account_id
