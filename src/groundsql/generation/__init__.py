"""Turning a question and a schema into candidate SQL."""
