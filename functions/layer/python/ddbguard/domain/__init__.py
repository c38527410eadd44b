"""Floor 3, the domain: accounts, ledgers, holds, transfers, orders, statements, the lock audit.

Each operation is written with the guards below it and raises the domain errors of
`ddbguard.errors`; nothing here knows HTTP.
"""
