"""Type-level tests, as PynamoDB's typing_tests: files mypy checks (`make lint`), never run. Each `assert_type` is a
claim about what the type checker sees; each `# type: ignore[...]` is a claim that it refuses something, held true
by mypy's warn_unused_ignores (pyproject.toml)."""
