"""Recall: the derived index.md, the hot.md progress slice, and the session-start brief."""
