"""The projects service: its entity (`project`), its handlers (`api`)."""
