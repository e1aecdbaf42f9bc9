"""The inspector's Request and Response tabs: the exchange's text, formatted when its tab first
shows it, in a view built then (the first frame shows the Events tab)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from playground.ui.kit.steady_tabs import SteadyTabs

    from .request_view import ExchangeView

__all__ = ["EXCHANGE_PLACEHOLDERS", "EXCHANGE_TITLES", "ExchangeTabs"]

# The inspector's tabs after Events: tab index -> title, and each view's placeholder text.
EXCHANGE_TITLES = {1: "Request", 2: "Response"}
EXCHANGE_PLACEHOLDERS = {
    1: "The request appears here once you press Send.",
    2: "The response status and headers appear here.",
}


class ExchangeTabs:
    """The Request and Response tabs of the ``Inspector`` (its attributes are the inspector's)."""

    tabs: SteadyTabs
    _exchange: dict[int, ExchangeView]
    _exchange_text: dict[int, Callable[[], str]]  # what a tab shows once open
    _exchange_whole: dict[int, Callable[[], str] | None]  # what its copy copies

    @property
    def request_view(self) -> ExchangeView:
        """The Request tab's text view (built now if it was not yet, its text set)."""
        return self._shown_exchange(1)

    @property
    def response_view(self) -> ExchangeView:
        """The Response tab's text view (built now if it was not yet, its text set)."""
        return self._shown_exchange(2)

    def _shown_exchange(self, index: int) -> ExchangeView:
        view = self._exchange_view(index)
        text = self._exchange_text.pop(index, None)
        if text is not None:
            view.setPlainText(text())
        return view

    def _set_exchange(
        self, index: int, text: Callable[[], str], whole: Callable[[], str] | None = None
    ) -> None:
        """``text``: what the tab shows; ``whole``: what its "Copy full …" copies."""
        # Formatted when its tab shows it: a conversation's request body is the whole thread,
        # and its JSON laid out again as each run starts took 15 ms of the run's first frame
        # after 50 runs (a 2-core AMD EPYC), for a tab that is seldom open while streaming.
        self._exchange_text[index] = text
        self._exchange_whole[index] = whole
        if index in self._exchange:
            self._exchange[index].full_text = whole
        if index in self._exchange and self.tabs.currentIndex() == index:
            self._shown_exchange(index)

    def _exchange_view(self, index: int) -> ExchangeView:
        view = self._exchange.get(index)
        if view is None:
            # Its module (with the redaction helpers) loads with the first view, too.
            from .request_view import ExchangeView

            view = ExchangeView(EXCHANGE_PLACEHOLDERS[index], self.tabs)  # insertTab reparents it
            view.full_text = self._exchange_whole.get(index)
            view.copy_title = f"Copy full {EXCHANGE_TITLES[index].lower()}"
            stand_in = self.tabs.widget(index)
            current = self.tabs.currentIndex()
            # The swap is not a tab change: nobody hears about it.
            blocked = self.tabs.blockSignals(True)
            try:
                self.tabs.removeTab(index)
                self.tabs.insertTab(index, view, EXCHANGE_TITLES[index])
                self.tabs.setCurrentIndex(current)
            finally:
                self.tabs.blockSignals(blocked)
            if stand_in is not None:
                stand_in.deleteLater()
            self._exchange[index] = view
        return view

    def _tab_opened(self, index: int) -> None:
        if index in EXCHANGE_TITLES:
            self._shown_exchange(index)

    def set_request(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None
    ) -> None:
        from .request_view import format_request

        self._set_exchange(
            1,
            lambda: format_request(method, url, headers, body),
            lambda: format_request(method, url, headers, body, whole=True),
        )

    def set_response(
        self, status: int | None, headers: list[tuple[str, str]], body: bytes | None = None
    ) -> None:
        from .request_view import format_response

        self._set_exchange(
            2,
            lambda: format_response(status, headers, body),
            lambda: format_response(status, headers, body, whole=True),
        )
