"""The order: ids scoped to the owner (another caller's id is as free to you as an unused one), versioned. Its
status moves by the table of `ddbguard.domain.order_status`; paying and refunding are `ddbguard.domain.orders`."""

from ddbguard.guards.entity import OWNER_SCOPED_IDS, Entity
from ddbguard.guards.fields import cents, choice, computed, integer, lines, matching, reference
from ddbguard.limits import MAX_ORDER_LINES, MAX_QUANTITY, SKU_PATTERN
from ddbguard.store.attribute_names import ACCOUNT_ID, ITEMS, QUANTITY, SKU, STATUS, TOTAL_CENTS, UNIT_PRICE_CENTS

__all__ = ["CANCELLED", "DELIVERED", "ORDER", "ORDER_STATUSES", "PAID", "PENDING", "REFUNDED", "SHIPPED"]

PENDING = "PENDING"
PAID = "PAID"
SHIPPED = "SHIPPED"
DELIVERED = "DELIVERED"
CANCELLED = "CANCELLED"
REFUNDED = "REFUNDED"
ORDER_STATUSES = (PENDING, PAID, SHIPPED, DELIVERED, CANCELLED, REFUNDED)

# ORDER#<owner tag>#<orderId> / ORDER; 404 order_not_found: the kind's defaults.
ORDER = Entity(
    "order",
    ids=OWNER_SCOPED_IDS,
    fields={
        ACCOUNT_ID: reference(
            "27f60ec3-d89f-5a94-931d-431dbff968a9", description="The caller's account whose ledger pays the order."
        ),
        STATUS: choice(ORDER_STATUSES, default=PENDING, example=CANCELLED, on_create=False),
        ITEMS: lines(
            "OrderLine",
            {
                SKU: matching("BOOK-1843", SKU_PATTERN, description="The article: A-Z, a-z, 0-9, '_', '.', '-'."),
                QUANTITY: integer(2, minimum=1, maximum=MAX_QUANTITY),
                UNIT_PRICE_CENTS: cents(1999),
            },
            max_items=MAX_ORDER_LINES,
        ),
        TOTAL_CENTS: computed(3998, minimum=0, description="The sum of quantity x unitPriceCents over the lines."),
    },
)
