"""SQL as an AST, below linking and generation: one query pulled out of a model's reply, and the schema elements
a query reads."""
