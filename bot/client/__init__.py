"""The only package that imports discord: the client and its command sync (``app``), slash
commands (``cog``, ``home_cog``), buttons and panel views, the translator."""
