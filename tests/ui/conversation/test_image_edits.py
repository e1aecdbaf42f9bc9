"""Image edits on the Images panel, on the real simulator: an input image (and a mask) turns Send
into a multipart POST /v1/images/edits that streams partials and a final picture; headless
``--attach`` does the same; the official openai SDK's ``images.edit`` sends the same fields."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from email.parser import BytesParser
from email.policy import HTTP
from pathlib import Path
from typing import Any

import openai
from headless_helpers import headless_env
from panel_helpers import sim_panel, then_wait
from PIL import Image as PILImage
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from playground.protocol.conversation.model import Image
from playground.ui.conversation.attachments import ImageChip


def _png(width: int = 64, height: int = 48, *, alpha: bool = False) -> bytes:
    buf = io.BytesIO()
    mode, fill = ("RGBA", (0, 0, 0, 0)) if alpha else ("RGB", (30, 120, 200))
    PILImage.new(mode, (width, height), fill).save(buf, "PNG")
    return buf.getvalue()


def _drop_file(widget: Any, path: Path) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    actions, buttons = Qt.DropAction.CopyAction, Qt.MouseButton.LeftButton
    mods = Qt.KeyboardModifier.NoModifier
    QApplication.sendEvent(widget, QDragEnterEvent(QPoint(5, 5), actions, mime, buttons, mods))
    QApplication.sendEvent(widget, QDropEvent(QPointF(5, 5), actions, mime, buttons, mods))


def test_an_input_image_makes_send_an_edit_that_streams_partials(
    qloop: Any, sim: Any, tmp_path: Path
) -> None:
    panel = sim_panel("images", sim, pace="instant")
    edit = panel.editor.image_input
    assert edit.mask_slot.isHidden()  # no mask before there is an image
    source = tmp_path / "source.png"
    source.write_bytes(_png())
    _drop_file(edit.source, source)
    assert edit.source.image == Image("image/png", _png())
    chip = edit.source.findChild(ImageChip)
    assert chip is not None and "64×48 PNG" in chip.info.text()
    assert not edit.mask_slot.isHidden()
    edit.mask_slot.set_image(Image("image/png", _png(alpha=True)))
    panel.editor.prompt.setPlainText("a red barn at dusk")
    panel.editor.partial_images.setValue(2)
    assert then_wait(qloop, panel) == "complete"
    images = panel.session.state.images
    assert [i.final for i in images] == [False, False, True]
    assert all(i.item is not None for i in images)
    assert panel.dump_state()["images"][-1]["final"] is True
    [request] = panel.requests
    assert request["path"] == "/v1/images/edits"
    body = request["body"]
    assert body["image"] == f"<{len(_png())} bytes>"
    assert body["mask"] == f"<{len(_png(alpha=True))} bytes>"
    assert body["prompt"] == "a red barn at dusk"
    assert body["stream"] == "true" and body["partial_images"] == "2"
    # Cleared: the next Send is a generation again.
    edit.source.clear()
    assert edit.files() == []
    assert then_wait(qloop, panel) == "complete"
    assert panel.requests[-1]["path"] == "/v1/images/generations"


def test_an_image_dropped_anywhere_on_the_panel_is_the_input(sim: Any, tmp_path: Path) -> None:
    panel = sim_panel("images", sim, pace="instant")
    source = tmp_path / "drop.png"
    source.write_bytes(_png(20, 20))
    _drop_file(panel.stack, source)  # the preview's side of the panel
    assert panel.editor.image_input.source.image == Image("image/png", _png(20, 20))


def test_no_image_no_edit_and_a_gif_is_refused_by_the_server(qloop: Any, sim: Any) -> None:
    panel = sim_panel("images", sim, pace="instant")
    edit = panel.editor.image_input
    edit.mask_slot.set_image(Image("image/png", _png(alpha=True)))
    assert edit.files() == []  # a mask alone edits nothing
    buf = io.BytesIO()
    PILImage.new("RGB", (8, 8)).save(buf, "GIF")
    edit.source.set_image(Image("image/gif", buf.getvalue()))
    then_wait(qloop, panel)
    assert panel.session.run.status == 400
    assert "unsupported mimetype" in panel.banner.text


def test_an_image_pasted_into_the_edit_slot(qloop: Any, sim: Any) -> None:
    panel = sim_panel("images", sim, pace="instant")
    slot = panel.editor.image_input.source
    mime = QMimeData()
    mime.setText("no picture here")
    QApplication.clipboard().setMimeData(mime)
    slot.paste()
    assert slot.image is None and slot.note.text() == "The clipboard holds no image."
    mime = QMimeData()
    mime.setData("image/png", _png(32, 16))
    QApplication.clipboard().setMimeData(mime)
    slot.paste()
    assert slot.image == Image("image/png", _png(32, 16))
    assert slot.note.isHidden()
    assert [name for name, _file in panel.editor.image_input.files()] == ["image"]


def _multipart(request: Any) -> dict[str, str]:
    """A multipart request's fields, each file as "<N bytes>" (as the panel's dump shows)."""
    head = f"Content-Type: {request.headers['content-type']}\r\n\r\n".encode()
    message = BytesParser(policy=HTTP).parsebytes(head + request.read())
    fields: dict[str, str] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        assert isinstance(name, str) and isinstance(payload, bytes)
        fields[name] = f"<{len(payload)} bytes>" if part.get_filename() else payload.decode()
    return fields


def test_the_openai_sdk_sends_the_same_edit(qloop: Any, sim: Any) -> None:
    panel = sim_panel("images", sim, pace="instant")
    panel.editor.image_input.source.set_image(Image("image/png", _png()))
    panel.editor.prompt.setPlainText("a lighthouse")
    assert then_wait(qloop, panel) == "complete"
    ours = panel.requests[0]
    sent: list[Any] = []
    kinds: list[str] = []
    hooks = {"request": [sent.append]}
    with (
        openai.DefaultHttpxClient(event_hooks=hooks, timeout=30) as http,
        openai.OpenAI(
            base_url=sim.base_url,
            api_key="sk-sim",
            max_retries=0,
            http_client=http,
            default_headers={"X-Sim-Pace": "instant"},
        ) as client,
    ):
        body = ours["body"]
        stream = client.images.edit(
            image=("image.png", _png(), "image/png"),
            prompt=body["prompt"],
            model=body["model"],
            stream=True,
            partial_images=int(body["partial_images"]),
            **{k: body[k] for k in ("size", "quality", "output_format") if k in body},
        )
        kinds = [event.type for event in stream]
    assert kinds[-1] == "image_edit.completed"
    assert kinds.count("image_edit.partial_image") == int(body["partial_images"])
    [request] = sent
    assert request.url.path == ours["path"] == "/v1/images/edits"
    assert _multipart(request) == body


def test_headless_attach_on_images_is_an_edit(tmp_path: Path) -> None:
    source = tmp_path / "source.png"
    source.write_bytes(_png())
    dump = tmp_path / "dump.json"
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "playground", "--route", "images"),
            *("--prompt", "a snowy field", "--attach", str(source), "--pace", "instant"),
            *("--dump-state", str(dump), "--exit-when-done"),
        ],
        capture_output=True,
        text=True,
        timeout=90,
        env=headless_env(tmp_path),
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    value = json.loads(dump.read_text())
    assert value["status"] == "complete"
    assert value["images"][-1]["final"] is True
    assert sum(1 for i in value["images"] if not i["final"]) >= 1
    [request] = value["requests"]
    assert request["path"] == "/v1/images/edits"
    assert request["body"]["image"] == f"<{len(_png())} bytes>"
    assert request["body"]["prompt"] == "a snowy field"
    assert "base64" not in json.dumps(request)


def test_attach_is_refused_where_no_image_goes(tmp_path: Path) -> None:
    import argparse

    import pytest

    from playground.ui.conversation.headless import check_arguments

    picture = tmp_path / "p.png"
    picture.write_bytes(_png())

    def check(route: str, *attach: Path) -> argparse.Namespace:
        args = argparse.Namespace(
            prompt="x", conversation=None, tool_result=None, attach=[str(a) for a in attach]
        )
        args.route = route
        check_arguments(args)
        return args

    assert [i.mime for i in check("images", picture, picture).images] == ["image/png"] * 2
    with pytest.raises(ValueError, match="--attach needs --route chat, responses, messages"):
        check("speech", picture)
    with pytest.raises(ValueError, match="at most one mask"):
        check("images", picture, picture, picture)
