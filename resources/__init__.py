"""The bundled files (icons, the sample recording, sample captures, the desktop entry), installed
as the package ``playground.resources`` (pyproject.toml maps this folder there); read them through
``playground.assets``."""
