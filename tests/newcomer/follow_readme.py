"""Follows the README's "Run it" section literally, as a newcomer would, and checks each
answer. Run by tests/newcomer/run.sh inside a network namespace of its own (nothing on
5432, no network), in a fresh clone.

The section's first shell block starts the service; the second is run one line at a time
in one shell (so `TOKEN=...` carries on to the next line), and every line's output is
checked by the entry of EXPECTED that matches it. A line of the README without an entry,
or an entry without its line, fails the run: the README and this check change together.
"""

import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

BASE = "http://127.0.0.1:8080"
# The first build from nothing: generous, it is not what is measured here.
BUILD_LIMIT_S = 60 * 60
COMMAND_LIMIT_S = 20 * 60


class Failed(Exception):
    pass


def say(text):
    print(f"newcomer: {text}", flush=True)


def section(readme, heading):
    start = readme.index(f"\n## {heading}\n")
    end = readme.find("\n## ", start + 1)
    return readme[start : end if end >= 0 else len(readme)]


def shell_blocks(text):
    return re.findall(r"```sh\n(.*?)```", text, flags=re.S)


def commands(block):
    """One command per line; a line ending in a backslash goes on to the next."""
    out, pending = [], ""
    for line in block.splitlines():
        pending += line
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        if pending.strip():
            out.append(pending.strip())
        pending = ""
    return out


def get(path):
    with urllib.request.urlopen(BASE + path, timeout=30) as answer:
        return answer.status, answer.read().decode()


def json_lines(output, count):
    rows = [json.loads(line) for line in output.splitlines() if line.strip()]
    if len(rows) != count:
        raise Failed(f"expected {count} JSON answers, got {len(rows)}: {output!r}")
    return rows


def check_install(out, shell):
    where = shell.run("command -v warlog")[1].strip()
    if not where.startswith(os.environ["CARGO_INSTALL_ROOT"]):
        raise Failed(f"`warlog` is not the installed binary: {where!r}")


def variable_matches(shell, name, pattern, what):
    value = shell.run(f'printf %s "${name}"')[1]
    if not re.fullmatch(pattern, value):
        raise Failed(f"{name} is not {what}: {value!r}")


def check_token(out, shell):
    variable_matches(shell, "TOKEN", r"wl_[A-Za-z0-9_-]{20,}", "a token")


def check_players(out, shell):
    rows = json_lines(out, 5)
    handles = [row.get("handle") for row in rows]
    if handles != ["ann", "bob", "cy", "di", "ed"]:
        raise Failed(f"registered {handles}")


def check_tournament_location(out, shell):
    variable_matches(shell, "T", r"/v1/tournaments/[0-9a-z-]+", "a tournament's path")


def check_tournament(out, shell):
    view = json.loads(out)
    if view.get("name") != "Winter Cup" or view.get("ruleset") != "cutthroat":
        raise Failed(f"the tournament: {out}")
    if len(view.get("deadlines", [])) != 2:
        raise Failed(f"two rounds, two deadlines: {out}")
    if view.get("short_tables") != "waiting_list":
        raise Failed(f"short tables fill from the waiting list by default: {out}")


def check_entries(out, shell):
    rows = json_lines(out, 5)
    if [row.get("status") for row in rows] != ["entered"] * 5:
        raise Failed(f"entries: {out}")
    if rows[-1].get("entered") != 5:
        raise Failed(f"five entered: {out}")


def check_round(out, shell):
    round_ = json.loads(out)
    tables = round_.get("tables", [])
    if len(tables) != 1 or not tables[0].get("game_id"):
        raise Failed(f"one table with its game: {out}")
    seated = tables[0].get("seats") or tables[0].get("players") or []
    if len(seated) != 5:
        raise Failed(f"five seated: {out}")
    status, game = get(f"/v1/games/{tables[0]['game_id']}")
    if status != 200 or json.loads(game).get("status") != "running":
        raise Failed(f"the round's game: {game}")


def check_page(out, shell):
    url = out.strip()
    if not re.fullmatch(re.escape(BASE.replace("127.0.0.1", "localhost")) + r"/tournaments/[0-9a-z-]+", url):
        raise Failed(f"not the tournament's page: {url!r}")
    status, page = get(url.removeprefix("http://localhost:8080"))
    if status != 200 or "Winter Cup" not in page:
        raise Failed(f"the page at {url}: {status}")


def nothing_to_check(out, shell):
    pass


# (the README's line, as a pattern; what its answer must be)
EXPECTED = [
    (r"cargo install --locked --path services/warlog", check_install),
    (r"TOKEN=\$\(warlog token create --role director --name dana\)", check_token),
    (r'AUTH="Authorization: Bearer \$TOKEN"', nothing_to_check),
    (r'JSON="Content-Type: application/json"', nothing_to_check),
    (r"for p in ann bob cy di ed; do curl .*/v1/players .*done", check_players),
    (r"T=\$\(curl .*/v1/tournaments .*\)", check_tournament_location),
    (r"curl -s localhost:8080\$T", check_tournament),
    (r"for p in ann bob cy di ed; do curl .*\$T/entries .*done", check_entries),
    (r"curl -s -X POST -H \"\$AUTH\" localhost:8080\$T/rounds", check_round),
    (r'echo "http://localhost:8080\$\{T#/v1\}"', check_page),
]


class Shell:
    """One bash, fed one command at a time, like a terminal."""

    def __init__(self, cwd, scratch):
        self.scratch = scratch
        self.count = 0
        self.bash = subprocess.Popen(
            ["bash", "--noprofile", "--norc"],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def run(self, command, limit=COMMAND_LIMIT_S):
        self.count += 1
        script = self.scratch / f"command-{self.count}.sh"
        output = self.scratch / f"output-{self.count}.txt"
        script.write_text(command + "\n")
        self.bash.stdin.write(f'source "{script}" > "{output}" 2>&1; echo "__status__ $?"\n')
        self.bash.stdin.flush()
        deadline = time.monotonic() + limit
        while True:
            ready, _, _ = select.select([self.bash.stdout], [], [], 5)
            if ready:
                line = self.bash.stdout.readline()
                if line.startswith("__status__ "):
                    return int(line.split()[1]), output.read_text()
                if not line:
                    raise Failed(f"the shell ended during {command!r}")
            if time.monotonic() > deadline:
                raise Failed(f"{command!r} ran longer than {limit} s")


def nothing_on(port):
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) != 0


def wait_until_serving(server, log):
    deadline = time.monotonic() + BUILD_LIMIT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise Failed(f"`cargo run --release` ended with {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if get("/healthz")[0] == 200:
                return
        except OSError:
            pass
        time.sleep(2)
    raise Failed("the service never answered /healthz")


def main(clone, scratch):
    clone, scratch = Path(clone), Path(scratch)
    if not nothing_on(5432):
        raise Failed("something answers on 127.0.0.1:5432: not a newcomer's machine")
    run_it = section((clone / "README.md").read_text(), "Run it")
    blocks = shell_blocks(run_it)
    if len(blocks) != 2:
        raise Failed(f"'Run it' should have two shell blocks, has {len(blocks)}")
    if commands(blocks[0]) != ["cargo run --release"]:
        raise Failed(f"the first block is not `cargo run --release`: {blocks[0]!r}")

    data_dir = Path(os.environ["XDG_DATA_HOME"]) / "warlog" / "pg"
    log = scratch / "server.log"
    say("cargo run --release (the build comes first)")
    started = time.monotonic()
    server = subprocess.Popen(
        ["bash", "-c", "exec cargo run --release"],
        cwd=clone,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )
    try:
        wait_until_serving(server, log)
        say(f"serving after {time.monotonic() - started:.0f} s")
        text = log.read_text()
        warning = f"created a new, empty PostgreSQL cluster in {data_dir}"
        if warning not in text:
            raise Failed(f"no warning about the new cluster ({warning!r}) in:\n{text}")

        shell = Shell(clone, scratch)
        lines = commands(blocks[1])
        if len(lines) != len(EXPECTED):
            raise Failed(f"{len(lines)} commands in the second block, {len(EXPECTED)} expected: {lines}")
        for line, (pattern, check) in zip(lines, EXPECTED):
            if not re.fullmatch(pattern, line):
                raise Failed(f"the README's line {line!r} is not the one checked ({pattern})")
            status, out = shell.run(line)
            if status != 0:
                raise Failed(f"{line!r} exited with {status}:\n{out}")
            check(out, shell)
            say(f"ok: {line[:90]}")

        # The same data from any directory: the director's token is listed from /.
        status, listed = Shell("/", scratch).run("warlog token list")
        if status != 0 or "dana" not in listed or "director" not in listed:
            raise Failed(f"`warlog token list` from / did not find the token:\n{listed}")
        say("ok: warlog token list, run from /, finds the same cluster")
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=120)
            except subprocess.TimeoutExpired:
                server.kill()
                raise Failed("the service did not stop on SIGTERM")
    if server.returncode != 0:
        raise Failed(f"the service stopped with {server.returncode}:\n{log.read_text()[-3000:]}")
    if (data_dir / "postmaster.pid").exists():
        raise Failed("the private cluster still runs after the service stopped")
    say("ok: SIGTERM stopped the service and its private cluster")


if __name__ == "__main__":
    try:
        main(sys.argv[1], sys.argv[2])
    except Failed as failure:
        print(f"newcomer: FAILED: {failure}", file=sys.stderr, flush=True)
        sys.exit(1)
    say("passed")
