"""The order: ids scoped to the owner (another caller's id is as free to you as an unused one), versioned."""

from ddbguard.domain.projections import ORDER_FIELDS
from ddbguard.guards.entity import OWNER_SCOPED_IDS, Entity

# ORDER#<owner tag>#<orderId> / ORDER; 404 order_not_found: the kind's defaults.
ORDER = Entity("order", ORDER_FIELDS, ids=OWNER_SCOPED_IDS)
