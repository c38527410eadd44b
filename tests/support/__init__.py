"""Test support shared by every suite: the handler client, call counting, fault injection."""
