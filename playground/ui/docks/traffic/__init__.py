"""The Traffic panel: the recording proxy run inside the window, each exchange shown live.

``feed`` carries the proxy thread's calls to the Qt thread and gives each exchange a session,
``table`` lists them, ``panel`` is the panel, ``dock`` starts the proxy and hosts the panel,
``dialog`` is File ▸ Proxy…, ``compare`` puts two exchanges side by side.
"""
