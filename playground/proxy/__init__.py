"""`playground proxy`: a recording proxy that relays any client's requests to a gateway.

Layers (one job per module): ``wire`` says what crosses (headers, URLs, routes), ``bodies`` what
a capture keeps of a request body, ``exchange`` is the transport-level record of each exchange
and the hub that tells listeners about it as it happens, ``verdict`` decodes each exchange with
the protocol layer, ``recorder`` writes captures, ``sinks`` hands each exchange to a transport
RunSink (what a window's traffic panel would subscribe with), ``relay`` is the ASGI app that
moves the bytes, ``server`` runs it with uvicorn, ``cli`` is the command.
"""
