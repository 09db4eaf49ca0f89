"""What every front end shares (the CLI's two parsers and the review page): option values turned
into library calls (`inputs`, `actions`) and results printed (`output`). No typer, no server here."""
