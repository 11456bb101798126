"""``accord serve``: a local web app to browse results stores, read transcripts and
approve agreements; ``accord report``: the same as one self-contained HTML file.

:func:`accord.serve.app.create_app` builds the ASGI app; :mod:`accord.serve.security`
has the token and CSRF guard (and the helpers a mounted app such as ``/play`` uses).
"""
