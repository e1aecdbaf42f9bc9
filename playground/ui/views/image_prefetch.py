"""ImagePrefetch: a partial image's pixels decoded while its event still arrives."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future

from playground.protocol.b64_progress import B64Decoder, ImageStringScanner
from playground.protocol.media import image_format
from playground.protocol.state import ImageState
from playground.transport.thread_priority import lower_priority
from playground.ui.kit.image_decode import DecodedImage, Pixels, load_pixels, present, worker_pool
from playground.ui.kit.image_png import inflate_png

__all__ = ["Guess", "ImagePrefetch", "early_result"]

# From the read that completes a 2.7 MB partial-image event, decoding its base64 and
# inflating its PNG took about 20 ms of the 43. Both can start as the base64 arrives: the
# session hands every network read to ``ImagePrefetch.feed`` on its reader thread, a scanner
# finds the image's string, and a worker thread inflates it with Pillow (which releases the GIL)
# as its bytes come. When the protocol layer has parsed the whole event, the view shows these
# pixels only if the event's base64 is exactly the text they were decoded from; anything else
# (no guess, a different text, a failed decode) takes the usual path.

_IDLE_S = 30.0  # a decode waiting this long for more bytes gives up (a stream that stalled)
_RESULT_S = 10.0  # the longest a claim waits for a complete guess's decode to finish
_KEEP = 3  # finished guesses kept for the view to claim (partials folded in one frame)
_NICE = 5  # these threads' priority below the UI thread's (Linux), once their input is complete
_MIN_PIPELINED = 1 << 18  # base64 characters: below this, decoding in one go is quick anyway
_PIECE = 1 << 18  # base64 characters per step when a whole text is decoded in pieces


def _start(
    early: bool, pipe: _Pipe, fit: tuple[int, int], then: Callable[[], None] | None = None
) -> Future[Pixels]:
    """The decode of ``pipe`` in a thread that may wait for network bytes: not a decode pool
    worker, which it would hold up; and, for a guess, a thread of its own, whose priority it
    lowers once its input is complete (``_yield_to_ui``); ``then`` runs there after the decode."""
    if not early:
        return worker_pool("image-inflate").submit(_decode, pipe, fit)
    future: Future[Pixels] = Future()

    def run() -> None:
        pipe.attach_reader(_yield_to_ui)
        if future.set_running_or_notify_cancel():
            try:
                pixels = _decode(pipe, fit)
                if then is not None:
                    then()
                future.set_result(pixels)
            except BaseException as exc:  # the claim sees it and takes the usual path
                future.set_exception(exc)

    threading.Thread(target=run, name="image-early", daemon=True).start()
    return future


def _yield_to_ui(thread: int) -> None:
    # Work done early must not slow what the UI thread does meanwhile: on two busy cores a guess
    # inflating while the UI thread folds the same event doubled that fold, 5.4 -> 8.5 ms median
    # (6.3 at nice 5), and image_ui_block_ms with it, 14 -> 22 ms. At nice 5 the kernel
    # lets the UI thread go first. But only from the read that completes the event (its fold is
    # next; the reader renices the decoder then, mid-inflate): while its bytes arrive the decode
    # must keep pace, and at nice 5 from the start, on a machine busy with other work, it fell
    # 20-40 ms behind them. A thread cannot be given its priority back (without privileges),
    # hence a thread per guess (transport/thread_priority.py).
    lower_priority(thread, _NICE)


class _Aborted(OSError):
    """The guess was given up while Pillow was reading it."""


class _Pipe:
    """A read-only file that Pillow reads while another thread appends to it (reads block)."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._pos = 0
        self._eof = False
        self._aborted = False
        self._cond = threading.Condition()
        self._reader: int | None = None  # the decoding thread's native id
        self._at_end: Callable[[int], None] | None = None  # given it once the input is complete

    # -- the writer ---------------------------------------------------------------------------
    def write(self, data: bytes) -> None:
        if data:
            with self._cond:
                self._buf += data
                self._cond.notify_all()

    def close_input(self) -> None:
        with self._cond:
            self._eof = True
            self._cond.notify_all()
        self._ended()

    def attach_reader(self, at_end: Callable[[int], None]) -> None:
        """The calling thread reads; ``at_end(its native id)`` runs once the input is complete
        (here, if it already is; else in ``close_input``, on the writer's thread)."""
        with self._cond:
            self._reader = threading.get_native_id()
            self._at_end = at_end
        self._ended()

    def abort(self) -> None:
        with self._cond:
            self._aborted = True
            self._cond.notify_all()

    # -- the file Pillow reads ----------------------------------------------------------------
    def read(self, size: int | None = -1) -> bytes:
        with self._cond:
            while True:
                if self._aborted:
                    raise _Aborted("the image was given up")
                have = len(self._buf) - self._pos
                if self._eof or (size is not None and 0 <= size <= have):
                    break
                if not self._cond.wait(_IDLE_S):
                    raise _Aborted("no more bytes came")
            stop = len(self._buf)
            if size is not None and size >= 0:
                stop = min(stop, self._pos + size)
            out = self._copy(self._pos, stop)
            self._pos = max(self._pos, stop)
            return out

    def wait(self, pos: int, need: int) -> tuple[bytes, bool]:
        """Every byte from ``pos`` once there are ``need`` of them (or the input ended); and
        whether the input ended."""
        with self._cond:
            while True:
                if self._aborted:
                    raise _Aborted("the image was given up")
                if self._eof or len(self._buf) - pos >= need:
                    return self._copy(pos, len(self._buf)), self._eof
                if not self._cond.wait(_IDLE_S):
                    raise _Aborted("no more bytes came")

    def _copy(self, start: int, stop: int) -> bytes:
        # One copy, not two (a bytearray slice, then bytes of it): the decoder holds the GIL
        # while it copies, and a partial's 2 MB pass through here.
        with memoryview(self._buf) as view:
            return view[start:stop].tobytes()

    def _ended(self) -> None:
        with self._cond:
            if not self._eof or self._at_end is None or self._reader is None:
                return
            at_end, self._at_end = self._at_end, None
        at_end(self._reader)

    def seek(self, offset: int, whence: int = 0) -> int:
        with self._cond:
            if whence == 1:
                offset += self._pos
            elif whence == 2:
                while not (self._eof or self._aborted):  # the end is known only at the end
                    if not self._cond.wait(_IDLE_S):
                        raise _Aborted("no more bytes came")
                offset += len(self._buf)
            self._pos = max(0, offset)
            return self._pos

    def tell(self) -> int:
        return self._pos

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True


def _decode(pipe: _Pipe, fit: tuple[int, int]) -> Pixels:
    """The usual decode (``decode_rgba``'s first step) of bytes that are still arriving.

    Fitting them to the box (``present``: Qt's scaling holds the GIL and takes both cores for a
    couple of milliseconds) waits for the claim, which comes once the UI thread has folded the
    event: done here it landed in that fold, and image_ui_block_ms grew with it."""
    from PIL import Image, ImageFile

    with Image.open(pipe) as img:  # type: ignore[arg-type]  # a file in all Pillow uses
        tile = img.tile
        if (
            img.format == "PNG"
            and len(tile) == 1
            and tile[0][0] == "zip"
            and not img.info.get("interlace")
            and getattr(img, "n_frames", 1) == 1
            and not ImageFile.LOAD_TRUNCATED_IMAGES
        ):
            pixels = inflate_png(img, pipe)
            if pixels is not None:
                return pixels
        return load_pixels(img, fit)


class Guess:
    """One image string the scanner found: its text as it came, and the decode of its bytes."""

    def __init__(self, fit: tuple[int, int], *, early: bool = True) -> None:
        self.fit = fit
        self.early = early  # decoded while the event arrives (else: a whole text, in pieces)
        self.text = bytearray()  # what the claim compares with the parsed event's base64
        self.complete = False  # the closing quote came
        self.dead = False
        self._b64: B64Decoder | None = B64Decoder()
        self._head = bytearray()  # the first bytes, until they show an image format
        self._pipe: _Pipe | None = None
        self._future: Future[Pixels] | None = None
        self._as_str: str | None = None  # ``text`` decoded, once the decode is done

    def add(self, piece: bytes) -> None:
        if self.early:
            self.text += piece
        assert self._b64 is not None
        self._write(self._b64.feed(piece))

    def _keep_str(self) -> None:
        # The text as a str, made by the decoding thread once it is done (the text is complete
        # by then, unless the image ended before its string did: then the length tells): the
        # claim then compares two strings, where encoding the parsed one first cost it 0.5-1.5
        # ms of GIL between the UI thread's fold and the fit.
        self._as_str = self.text.decode("ascii")

    @property
    def decoding(self) -> bool:
        """A thread is decoding the bytes as they come."""
        return self._pipe is not None and not self.dead

    def finish(self) -> None:
        assert self._b64 is not None
        self._write(self._b64.finish())
        self._b64 = None
        if self._pipe is None:
            self.abort()  # too short to be an image
            return
        self._pipe.close_input()
        self.complete = True

    def abort(self) -> None:
        self.dead = True
        self._b64 = None
        self.text = bytearray()
        self._as_str = None
        if self._pipe is not None:
            self._pipe.abort()

    def _write(self, data: bytes) -> None:
        pipe = self._pipe
        if pipe is not None:
            pipe.write(data)
            return
        head = self._head
        head += data
        if len(head) < 16:
            return
        if image_format(bytes(head[:16])) is None:
            self.abort()  # a long string that is not an image: nothing to decode early
            return
        self._pipe = pipe = _Pipe()
        pipe.write(bytes(head))
        self._head = bytearray()
        self._future = _start(self.early, pipe, self.fit, self._keep_str)

    def result(self, text: str | None, fit: tuple[int, int]) -> DecodedImage | None:
        """The pixels fitted to ``fit``, only if ``text`` is exactly the text decoded here (a
        guess that is not ``early`` was fed ``text`` itself, by ``_pipelined``)."""
        future = self._future
        if text is None or not self.complete or self.dead or future is None:
            return None
        if self.early:
            made = self._as_str
            if made is not None and len(made) == len(self.text):
                same = made == text
            else:
                try:
                    same = self.text == text.encode("ascii")
                except UnicodeEncodeError:
                    return None
            if not same:
                return None
        try:
            pixels = future.result(_RESULT_S)
        except Exception:  # a decode error or a timeout: the usual path says what it is
            return None
        if pixels.drafted and fit != self.fit:
            return None  # JPEG decoded at a scale for another box
        return present(pixels, fit)


class ImagePrefetch:
    """Takes a run's network reads (any thread) and keeps the guesses the view may claim."""

    def __init__(self) -> None:
        self.fit = (1024, 1024)  # the view's box, read when a guess starts
        self._lock = threading.Lock()
        self._scanner = ImageStringScanner(self)
        self._open: Guess | None = None
        self._done: deque[Guess] = deque(maxlen=_KEEP)
        self._woke = False  # this read gave a decoder bytes

    def feed(self, chunk: bytes) -> None:
        """One network read, in order (the session's reader thread)."""
        with self._lock:
            try:
                self._scanner.feed(chunk)
            except Exception:  # a bug here must never touch the stream: the usual path remains
                self._scanner.reset()
                self.abort()
            woke, self._woke = self._woke, False
        if woke:
            # The decoder this read woke needs the GIL to take its bytes, and a thread that holds
            # it (this one reading on, or the UI thread) gives it up only after a switch interval
            # (5 ms): a 2.7 MB partial's decoder waited 5-10 ms a read and fell 20 ms behind the
            # arrival. Handing it over here lets it start at once (its decode releases the GIL).
            time.sleep(0)

    def reset(self) -> None:
        """A new run: forget everything (a guess being decoded is given up)."""
        with self._lock:
            self._scanner.reset()
            self.abort()
            self._done.clear()

    def claim(self, size: int) -> Guess | None:
        """The oldest finished guess whose text is ``size`` characters long (UI thread)."""
        with self._lock:
            for guess in self._done:
                if len(guess.text) == size:
                    self._done.remove(guess)
                    return guess
        return None

    # -- the scanner's sink (called with the lock held) ----------------------------------------
    def begin(self) -> None:
        self.abort()
        self._open = Guess(self.fit)

    def text(self, piece: bytes) -> None:
        guess = self._open
        if guess is not None and not guess.dead:
            try:
                guess.add(piece)
            except Exception:  # not base64 the usual decoder reads the same way
                guess.abort()
            self._woke |= guess.decoding

    def end(self) -> None:
        guess, self._open = self._open, None
        if guess is not None and not guess.dead:
            try:
                guess.finish()
            except Exception:
                guess.abort()
            self._woke |= guess.decoding
            if guess.complete:
                self._done.append(guess)

    def abort(self) -> None:
        guess, self._open = self._open, None
        if guess is not None:
            guess.abort()


def early_result(
    guess: Guess | None, image: ImageState, fit: tuple[int, int]
) -> DecodedImage | None:
    """For the decode worker: the guess's pixels if ``image`` has exactly its text; else, for a
    large image, its base64 decoded in pieces while another thread inflates what they give."""
    if guess is not None:
        result = guess.result(image.b64, fit)
        if result is not None:
            return result
    return _pipelined(image.b64, fit)


def _pipelined(text: str | None, fit: tuple[int, int]) -> DecodedImage | None:
    # base64 (5-6 ms for a 2.7 MB partial, GIL held) and the PNG inflate (14 ms, GIL
    # free) one after the other were 20 ms; side by side they take about as long as the inflate.
    if text is None or len(text) < _MIN_PIPELINED or not text.isascii():
        return None
    guess = Guess(fit, early=False)
    try:
        for i in range(0, len(text), _PIECE):
            guess.add(text[i : i + _PIECE].encode("ascii"))
            time.sleep(0)  # hand the GIL over between pieces (b64decode_lenient does too)
        guess.finish()
    except Exception:  # not base64 this decoder reads exactly like the usual one
        guess.abort()
        return None
    return guess.result(text, fit)
