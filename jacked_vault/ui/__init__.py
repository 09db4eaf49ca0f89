"""The review page (`jacked memory ui`): a local web page over the same library calls as the CLI.

`app.py` holds the routes, `security.py` the one middleware every request passes (Host, Origin,
token and session, CSRF, headers), `render.py` the escaping Jinja2 environment, Markdown and the
pictures, `server.py` the listening socket (127.0.0.1 only). Templates and static files ship in
the package (`templates/`, `static/`): no build step, nothing loaded from the network.
"""
