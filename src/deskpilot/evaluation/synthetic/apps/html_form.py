"""The synthetic form as a web page in Chromium: `python html_form.py spec.json state.json`. A server on 127.0.0.1
serves the page and takes its state (the page posts it after every change); Chromium shows it as an app window."""

import html
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from threading import Lock, Thread

FLAGS = ("--no-sandbox", "--test-type", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
         "--no-first-run", "--no-default-browser-check", "--disable-features=Translate", "--password-store=basic")
SCRIPT = """
const state = JSON.parse(document.body.dataset.state);
function post() { fetch('/state', {method: 'POST', body: JSON.stringify(state)}); }
document.querySelectorAll('[data-label]').forEach(el => el.addEventListener(
  el.type === 'text' ? 'input' : 'change', () => {
    state[el.dataset.label] = el.type === 'checkbox' ? el.checked : el.value; post(); }));
document.querySelectorAll('button').forEach(b => b.addEventListener('click', () => {
  state.pressed.push(b.textContent); document.getElementById('status').textContent = b.textContent + ' done';
  post(); }));
"""


def page(spec: dict) -> str:
    rows, state = [], {"pressed": []}
    for control in spec["controls"]:
        label, kind, initial = control["label"], control["kind"], control["initial"]
        state[label] = initial
        name = html.escape(label)
        if kind == "checkbox":
            checked = " checked" if initial else ""
            rows.append(f'<tr><td></td><td><label><input type="checkbox" data-label="{name}"{checked}> {name}</label>'
                        "</td></tr>")
        elif kind == "field":
            rows.append(f'<tr><td><label for="f{len(rows)}">{name}</label></td><td><input type="text" '
                        f'id="f{len(rows)}" data-label="{name}" value="{html.escape(initial)}" size="30"></td></tr>')
        elif kind == "dropdown":
            options = "".join(f'<option{" selected" if o == initial else ""}>{html.escape(o)}</option>'
                              for o in control["options"])
            rows.append(f'<tr><td>{name}</td><td><select data-label="{name}">{options}</select></td></tr>')
        else:
            radios = "".join(f'<label><input type="radio" name="{name}" value="{html.escape(o)}" data-label="{name}"'
                             f'{" checked" if o == initial else ""}> {html.escape(o)}</label> '
                             for o in control["options"])
            rows.append(f"<tr><td>{name}</td><td>{radios}</td></tr>")
    buttons = "".join(f"<button>{html.escape(b)}</button> " for b in spec["buttons"])
    menu = "".join(f"<span>{html.escape(m)}</span>" for m in spec.get("menu", ()))
    table = f"<table>{''.join(rows)}</table>"
    if spec.get("grouped"):
        table = f"<fieldset><legend>{html.escape(spec['title'])}</legend>{table}</fieldset>"
    side = "".join(f"<li>{html.escape(item)}</li>" for item in spec.get("side_list", ()))
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(spec['title'])}</title>"
            "<style>body{font:15px sans-serif;margin:16px} td{padding:5px 10px 5px 0} button{font-size:15px;"
            "padding:4px 12px} .menu span{margin-right:18px} .cols{display:flex;gap:40px} ul{list-style:none;"
            "border:1px solid #999;padding:6px 12px;margin:0}</style></head>"
            f"<body data-state='{html.escape(json.dumps(state))}'>"
            f"{f'<div class=menu>{menu}</div>' if menu else ''}<h3>{html.escape(spec['title'])}</h3>"
            f"<div class=cols><div>{table}</div>{f'<ul>{side}</ul>' if side else ''}</div>"
            f"<p>{buttons}</p><p id='status'>Ready</p><script>{SCRIPT}</script></body></html>")


def main() -> None:
    spec = json.load(open(sys.argv[1], encoding="utf-8"))
    state_path = sys.argv[2]
    body = page(spec).encode()

    writing = Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server name
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:  # noqa: N802
            data = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with writing:  # the page posts on every key: two threads writing one temporary file made it unreadable
                with open(state_path + ".tmp", "wb") as handle:
                    handle.write(data)
                os.replace(state_path + ".tmp", state_path)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *_: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    Thread(target=server.serve_forever, daemon=True).start()
    state = json.loads(html.unescape(body.decode().split("data-state='")[1].split("'")[0]))
    with open(state_path, "w", encoding="utf-8") as handle:
        json.dump(state, handle)
    chromium = next(p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p)
    profile = tempfile.mkdtemp(prefix="deskpilot-form-")
    height = 180 + 40 * (len(spec["controls"]) + 2)
    width = 900 if spec.get("side_list") else 640
    scale = os.environ.get("DESKPILOT_APP_SCALE", "1")  # the desktop's scale factor (the suite's session sets it)
    browser = subprocess.Popen([chromium, *FLAGS, f"--force-device-scale-factor={scale}",
                                f"--user-data-dir={profile}", "--window-position=60,40",
                                f"--window-size={width},{height}", f"--app=http://127.0.0.1:{server.server_port}/"],
                               env={**os.environ, "TMPDIR": profile}, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    signal.signal(signal.SIGTERM, lambda *_: (browser.terminate(), shutil.rmtree(profile, True), sys.exit(0)))
    browser.wait()
    shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
