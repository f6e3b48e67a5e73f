"""nmthpo."""
