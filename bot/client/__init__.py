"""The only package that imports discord: the client and its command sync (``app``), slash
commands (``cog``, ``home_cog``), buttons and panel views, ``/torres review`` and the step buttons (``review_views``), the
translator."""
