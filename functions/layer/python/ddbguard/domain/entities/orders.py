"""The order: ids scoped to the owner (another caller's id is as free to you as an unused one), versioned."""

from ddbguard.domain.projections import ORDER_FIELDS
from ddbguard.guards.entity import OWNER_SCOPED_IDS, Entity
from ddbguard.store import keys

ORDER = Entity(
    kind="order",
    prefix=keys.ORDER_PREFIX,
    sort=keys.ORDER_SORT,
    id_field="orderId",
    public=ORDER_FIELDS,
    not_found="order_not_found",
    ids=OWNER_SCOPED_IDS,
)
