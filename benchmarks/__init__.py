"""groundsql's benchmarks: one script per measurement, run by name with `python -m benchmarks NAME`
(benchmarks/README.md lists them; benchmarks/registry.py holds their commands)."""
