"""Live output widgets: each follows a StreamState incrementally (reset / refresh / finish).

Each view loads with its own module, when a panel first shows it
(``playground.ui.runtime.lazy``): the chat panel shown in the first frame needs three of them,
not the image, audio and music views.
"""
