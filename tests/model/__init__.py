"""The executable model of the API's rules: plain Python, no DynamoDB, no HTTP.

It is the specification a reader checks a rule against. `ApiModel` (api.py) answers every operation of
docs/api.md with the status, code and body fields the API must give, from a `World` (world.py) of accounts,
ledgers, holds, orders, Idempotency-Keys and what deleted things leave behind. The areas' rules are in
accounts.py, ledgers.py and orders.py; keys.py says what a key remembers and for how long.

tests/integration/test_api_stateful.py drives random sequences through the real handlers on DynamoDB Local and
compares every answer with the model's, then checks the table's invariants after every step.
"""
