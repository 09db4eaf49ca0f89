"""The vault as a git workflow: the code repo's post-merge hook and the capture it starts."""
