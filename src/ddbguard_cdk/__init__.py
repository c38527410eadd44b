"""ddbguard_cdk: ddbguard's table, background jobs and least-privilege grants as AWS CDK (Python) constructs.

For a team's own stack: `GuardedTable` (the table with its stream and `unsettled` index, the settlement function,
the sweeper, the lock audit's state machine, their alarms; `add_function` and `grant_entity` for the team's own
handlers) and `grant_entity_access`. The product's infra/ builds its stack from the same parts (the modules of this
package). Installed with the `[cdk]` extra: `pip install 'ddbguard[cdk]'`.
"""

from ddbguard_cdk.functions import ARCHITECTURE, RUNTIME, guarded_function
from ddbguard_cdk.grants import entity_access, grant_entity_access, grant_table_access, table_statements
from ddbguard_cdk.guarded_table import GuardedTable
from ddbguard_cdk.layers import dependencies_layer, library_layer
from ddbguard_cdk.lock_audit_run import LockAuditRun
from ddbguard_cdk.table import guarded_table

# Its names, and its modules (each with its own `__all__`): the parts infra/ builds the product's stack from.
__all__ = [
    "ARCHITECTURE",
    "RUNTIME",
    "GuardedTable",
    "LockAuditRun",
    "dependencies_layer",
    "dependency_layer",
    "entity_access",
    "functions",
    "grant_entity_access",
    "grant_table_access",
    "grants",
    "guarded_function",
    "guarded_table",
    "layer_bytecode",
    "layers",
    "library_layer",
    "lock_audit_run",
    "settlement",
    "table",
    "table_statements",
]
